package io.agentbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code throughput}: 0 ms model and tool latency, K = 3, closed loop at C = 64 and 512: how
 * many conversations per second and how much CPU of the runtime process per conversation, for
 * Agentbus, the LangChain4j peer (a pool of C platform threads) and the raw HTTP ceiling.
 * Options: {@code --cs 64,512 --k 3 --n 200000 --seconds 10 --warmup-seconds 4 --mcp stdio
 * --subjects ceiling,agentbus,agentbus-sse,agentbus-http,langchain4j}
 * ({@code agentbus} as the peer: plain JSON replies; {@code agentbus-sse}: streamed, Agentbus' default;
 * {@code agentbus-http}: driven over the HTTP API).
 */
final class ThroughputScenario {

  static List<Row> run(Settings s) throws Exception {
    List<Row> rows = new ArrayList<>();
    Workload w = new Workload(s.integer("k", 3, 3), 0, 0, 0, s.string("mcp", "stdio", "stdio"));
    List<String> subjects = s.list("subjects", "serve,langchain4j,agentbus-sse,ceiling", "serve,agentbus,langchain4j");
    for (String c : s.list("cs", "64,512", "64")) {
      int conc = Integer.parseInt(c);
      rows.addAll(new ConversationBench().run(new ConversationBench.Config("throughput", w, conc,
        s.integer("n", 200_000, 20_000), 1_000_000, s.number("warmup-seconds", 15, 1) * 1000,
        s.number("seconds", 10, 2) * 1000, false, 0, subjects)));
    }
    return rows;
  }
}
