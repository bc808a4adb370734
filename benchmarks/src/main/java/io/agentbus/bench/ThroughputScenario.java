package io.agentbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code throughput}: 0 ms model and tool latency, K = 3, closed loop at C = 64 and 512: how
 * many conversations per second and how much CPU of the runtime process per conversation, for
 * Agentbus, the LangChain4j peer (a pool of C platform threads) and the raw HTTP ceiling.
 * Options: {@code --cs 64,512 --k 3 --n 200000 --seconds 10 --warmup-seconds 15 --mcp stdio
 * --subjects serve,langchain4j,agentbus-sse,ceiling --repeat 2} ({@code serve}: the headline,
 * {@code java -jar target/agentbus.jar serve} driven over HTTP; {@code agentbus}: in-process, plain
 * JSON replies like the peer; {@code agentbus-sse}: streamed, Agentbus' default;
 * {@code agentbus-http}: in-process HTTP API). {@code --repeat R} runs the subject list R times
 * in alternation, the ratios to the peer taken per repetition (smoke default 1). Opt-in subjects
 * (never in the defaults): {@code serve-memory}, {@code serve-postgres} (the store cell, issue 13),
 * {@code serve-cluster1} and {@code serve-cluster3} (the cluster cell, issue 14: see
 * {@link ClusterServeSubject}).
 */
final class ThroughputScenario {

  static List<Row> run(Settings s) throws Exception {
    List<Row> rows = new ArrayList<>();
    int k = s.integer("k", 3, 3);
    Workload w = new Workload(k, 0, 0, 0, s.string("mcp", "stdio", "stdio"), s.integer("offered", k, k));
    List<String> subjects = s.list("subjects", "serve,langchain4j,agentbus-sse,ceiling", "serve,agentbus,langchain4j");
    for (String c : s.list("cs", "64,512", "64")) {
      int conc = Integer.parseInt(c);
      rows.addAll(new ConversationBench().run(new ConversationBench.Config("throughput", w, conc,
        s.integer("n", 200_000, 20_000), 1_000_000, s.number("warmup-seconds", 15, 1) * 1000,
        s.number("seconds", 10, 2) * 1000, false, 0, subjects, s.integer("repeat", 2, 1),
        s.string("peer-http", "auto", "auto"), s.number("jit-settle-seconds", 120, 0) * 1000)));
    }
    return rows;
  }
}
