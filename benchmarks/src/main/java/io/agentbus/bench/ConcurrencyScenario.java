package io.agentbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code concurrency}: long model calls, many conversations in flight. Tools take 100 ms, K = 3;
 * each level is C:modelMs (default 1000 in flight with 2 s model calls, and 10,000 with 10 s
 * ones, like long real answers). Reports the turn overhead (conversation time minus the
 * injected latencies) and the live heap per in-flight conversation, for Agentbus and the
 * LangChain4j peer on virtual threads. Options: {@code --levels 1000:2000,10000:10000
 * --tool-ms 100 --k 3 --rounds 2 --mcp stdio --subjects agentbus,langchain4j-vt}; each level
 * runs {@code rounds x C} conversations after a warm-up of min(C, 2000); the first C of each
 * phase start spread over {@code --ramp-ms} (default: one conversation's injected latency).
 */
final class ConcurrencyScenario {

  static List<Row> run(Settings s) throws Exception {
    List<Row> rows = new ArrayList<>();
    long toolMs = s.number("tool-ms", 100, 100);
    int k = s.integer("k", 3, 3);
    int rounds = s.integer("rounds", 2, 2);
    String mcp = s.string("mcp", "stdio", "stdio");
    List<String> subjects = s.list("subjects", "agentbus,langchain4j-vt", "agentbus,langchain4j-vt");
    for (String level : s.list("levels", "1000:2000,10000:10000", "200:500")) {
      String[] parts = level.split(":");
      int c = Integer.parseInt(parts[0]);
      long modelMs = Long.parseLong(parts[1]);
      Workload w = new Workload(k, modelMs, 0, toolMs, mcp);
      long conversationMs = w.injectedMs();
      long maxMs = Math.max(60_000, (rounds + 2) * conversationMs * 3);
      // The first C start spread over one conversation time: a steady arrival rate of C / T.
      rows.addAll(new ConversationBench().run(new ConversationBench.Config("concurrency", w, c, rounds * c,
        Math.min(c, 2_000), maxMs, maxMs, true, s.number("ramp-ms", conversationMs, conversationMs), subjects)));
    }
    return rows;
  }
}
