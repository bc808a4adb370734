package io.agentbus.bench;

import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line: {@code [scenario] [--smoke] [--json] [--strict] [--report DIR] [--key value]...}.
 * Every {@code --key value} a scenario reads has a normal and a {@code --smoke} default.
 */
final class Settings {

  private static final Set<String> FLAGS = Set.of("smoke", "json", "strict");
  final String scenario;
  final boolean smoke;
  final boolean json;
  final boolean strict;
  final String reportDir;
  private final Map<String, String> values;
  private final Set<String> read = new HashSet<>();

  private Settings(String scenario, Set<String> flags, Map<String, String> values) {
    this.scenario = scenario;
    this.smoke = flags.contains("smoke");
    this.json = flags.contains("json");
    this.strict = flags.contains("strict");
    this.values = values;
    this.reportDir = values.remove("report");
  }

  static Settings parse(String[] args) {
    String scenario = "fanout";
    Set<String> flags = new HashSet<>();
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].startsWith("--")) {
        String key = args[i].substring(2);
        if (FLAGS.contains(key)) {
          flags.add(key);
        } else if (i + 1 < args.length) {
          values.put(key, args[++i]);
        } else {
          throw new IllegalArgumentException("--" + key + " needs a value");
        }
      } else {
        scenario = args[i];
      }
    }
    return new Settings(scenario, flags, values);
  }

  String string(String key, String normal, String smokeDefault) {
    read.add(key);
    return values.getOrDefault(key, smoke ? smokeDefault : normal);
  }

  int integer(String key, int normal, int smokeDefault) {
    return Integer.parseInt(string(key, String.valueOf(normal), String.valueOf(smokeDefault)));
  }

  long number(String key, long normal, long smokeDefault) {
    return Long.parseLong(string(key, String.valueOf(normal), String.valueOf(smokeDefault)));
  }

  List<String> list(String key, String normal, String smokeDefault) {
    return Arrays.stream(string(key, normal, smokeDefault).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** @return options given on the command line that no scenario read (typos) */
  Set<String> unread() {
    Set<String> left = new HashSet<>(values.keySet());
    left.removeAll(read);
    return left;
  }
}
