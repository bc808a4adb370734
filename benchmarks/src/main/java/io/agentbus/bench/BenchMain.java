package io.agentbus.bench;

import ch.qos.logback.classic.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the benchmark jar: {@code java -jar agentbus-benchmarks.jar SCENARIO [--smoke]
 * [--json] [--report DIR] [--strict] [--option value]...}. Scenarios: {@code throughput},
 * {@code concurrency}, {@code fanout} (the default), {@code stdio-pipeline}, or {@code all} (these
 * four); {@code cluster-tools} (issue 14) runs only when named.
 * Prints one table per scenario and, with {@code --json}, one JSON line per run. Exit 1 when a
 * run had failed conversations (or, with {@code --strict}, when the fanout goal is missed),
 * 2 for a usage error.
 */
public final class BenchMain {

  static final List<String> SCENARIOS = List.of("throughput", "concurrency", "fanout", "stdio-pipeline");
  /** Scenarios that {@code all} leaves out: run only when named. */
  static final List<String> OPT_IN = List.of(ClusterToolScenario.NAME);

  private BenchMain() {
  }

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.agentbus.bench")).setLevel(Level.INFO);
    Settings s;
    try {
      s = Settings.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    List<String> scenarios = "all".equals(s.scenario) ? SCENARIOS : List.of(s.scenario);
    if (!SCENARIOS.containsAll(scenarios) && !OPT_IN.containsAll(scenarios)) {
      System.err.println("unknown scenario '" + s.scenario + "' (known: " + String.join(", ", SCENARIOS) + ", all, "
        + String.join(", ", OPT_IN) + ")");
      System.exit(2);
    }
    System.out.printf("agentbus benchmarks: %s%s, Java %s, %d cores%n", s.scenario, s.smoke ? " (smoke)" : "",
      Runtime.version(), Runtime.getRuntime().availableProcessors());
    Map<String, List<Row>> results = new LinkedHashMap<>();
    boolean ok = true;
    for (String scenario : scenarios) {
      long start = System.nanoTime();
      List<Row> rows = new ArrayList<>();
      switch (scenario) {
        case "throughput" -> rows = ThroughputScenario.run(s);
        case "concurrency" -> rows = ConcurrencyScenario.run(s);
        case "stdio-pipeline" -> rows = StdioPipelineScenario.run(s);
        case ClusterToolScenario.NAME -> rows = ClusterToolScenario.run(s);
        default -> {
          FanoutScenario fanout = new FanoutScenario(s.number("t-ms", 50, 50),
            s.list("ks", "1,3,8", "1,3,8").stream().map(Integer::valueOf).toList(), s.integer("reps", 30, 5),
            s.integer("warmup", 20, 3), s.integer("noop-reps", 500, 50), s.integer("global-warmup", 1000, 200));
          ok &= fanout.run() || !s.strict;
          rows = fanout.rows;
        }
      }
      for (Row r : rows) {
        ok &= r.data.getInteger("failed", 0) == 0;
      }
      results.put(scenario, rows);
      if (!"fanout".equals(scenario)) {
        System.out.println(Tables.of(scenario, rows).render());
      }
      System.out.printf("%s took %.0f s%n%n", scenario, (System.nanoTime() - start) / 1e9);
      if (s.json) {
        rows.forEach(r -> System.out.println(r.data.encode()));
      }
    }
    if (!s.unread().isEmpty()) {
      System.err.println("warning: options not used by " + s.scenario + ": " + s.unread());
    }
    if (s.reportDir != null) {
      Path page = Report.write(Path.of(s.reportDir), s, results);
      System.out.println("report: " + page);
    }
    System.exit(ok ? 0 : 1);
  }
}
