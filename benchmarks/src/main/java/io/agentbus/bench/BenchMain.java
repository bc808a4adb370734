package io.agentbus.bench;

import ch.qos.logback.classic.Level;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * Entry point of the benchmark jar: {@code java -jar agentbus-benchmarks.jar [scenario]
 * [--t-ms 50] [--ks 1,3,8] [--reps 30] [--warmup 20] [--noop-reps 500]}. Scenarios: {@code fanout} (default).
 */
public final class BenchMain {

  private BenchMain() {
  }

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    String scenario = "fanout";
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--") && i + 1 < args.length) {
        options.put(args[i].substring(2), args[++i]);
      } else {
        scenario = args[i];
      }
    }
    if (!"fanout".equals(scenario)) {
      System.err.println("unknown scenario '" + scenario + "' (known: fanout)");
      System.exit(2);
    }
    long tMs = Long.parseLong(options.getOrDefault("t-ms", "50"));
    List<Integer> ks = Arrays.stream(options.getOrDefault("ks", "1,3,8").split(",")).map(String::trim).map(Integer::valueOf).toList();
    int reps = Integer.parseInt(options.getOrDefault("reps", "30"));
    int warmup = Integer.parseInt(options.getOrDefault("warmup", "20"));
    int noopReps = Integer.parseInt(options.getOrDefault("noop-reps", "500"));
    boolean ok = new FanoutScenario(tMs, ks, reps, warmup, noopReps).run();
    System.exit(ok ? 0 : 1);
  }
}
