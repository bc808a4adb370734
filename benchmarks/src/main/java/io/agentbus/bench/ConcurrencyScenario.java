package io.agentbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code concurrency}: long model calls, many conversations in flight. Tools take 100 ms, K = 3;
 * each level is C:modelMs (default 1000 in flight with 2 s model calls, and 10,000 with 10 s
 * ones, like long real answers). Reports the turn overhead (conversation time minus the
 * injected latencies, 2 x model + tool) after the ramp, the fixture floor and the live heap per
 * in-flight conversation, for {@code serve} (the headline) and the LangChain4j peer on virtual
 * threads. Options: {@code --levels 1000:2000,10000:10000 --tool-ms 100 --k 3 --rounds 1
 * --ramp-ms T --repeat 1 --mcp stdio --subjects serve,langchain4j-vt}. Per level and subject: a
 * warm-up of min(C, 2000) conversations, then the measured phase: the ramp (the first C
 * conversations started evenly over {@code --ramp-ms}, default one conversation's injected
 * latency 2 x model + tool, i.e. 20.1 s at 10 s model and 100 ms tools), then {@code rounds x C}
 * more, each started when another ends (closed loop at C). The overhead percentiles cover the
 * conversations started after the ramp: the steady state, not the build-up.
 */
final class ConcurrencyScenario {

  static List<Row> run(Settings s) throws Exception {
    List<Row> rows = new ArrayList<>();
    long toolMs = s.number("tool-ms", 100, 100);
    int k = s.integer("k", 3, 3);
    int rounds = s.integer("rounds", 1, 1);
    int repeat = s.integer("repeat", 1, 1);
    String mcp = s.string("mcp", "stdio", "stdio");
    List<String> subjects = s.list("subjects", "serve,langchain4j-vt", "serve,langchain4j-vt");
    String ramp = s.string("ramp-ms", "", "");
    String peerHttp = s.string("peer-http", "auto", "auto");
    for (String level : s.list("levels", "1000:2000,10000:10000", "200:500")) {
      String[] parts = level.split(":");
      int c = Integer.parseInt(parts[0]);
      long modelMs = Long.parseLong(parts[1]);
      Workload w = new Workload(k, modelMs, 0, toolMs, mcp);
      long conversationMs = w.injectedMs();
      long rampMs = ramp.isEmpty() ? conversationMs : Long.parseLong(ramp);
      long maxMs = Math.max(60_000, (rounds + 3) * conversationMs * 3);
      rows.addAll(new ConversationBench().run(new ConversationBench.Config("concurrency", w, c, (rounds + 1) * c,
        Math.min(c, 2_000), maxMs, maxMs, true, rampMs, subjects, repeat, peerHttp,
        s.number("jit-settle-seconds", 0, 0) * 1000)));
    }
    return rows;
  }
}
