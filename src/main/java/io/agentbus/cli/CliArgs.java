package io.agentbus.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Positional arguments plus {@code --flag} and {@code --option VALUE} pairs. */
public final class CliArgs {

  private final List<String> positional = new ArrayList<>();
  private final Map<String, String> options = new HashMap<>();

  /**
   * @param flags option names that take no value
   * @throws IllegalArgumentException on an option missing its value or an unknown option
   */
  public CliArgs(List<String> args, Set<String> flags, Set<String> valued) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.startsWith("--") && a.length() > 2) {
        String name = a.substring(2);
        int eq = name.indexOf('=');
        if (eq > 0) {
          put(name.substring(0, eq), name.substring(eq + 1), flags, valued);
        } else if (flags.contains(name)) {
          options.put(name, "true");
        } else if (valued.contains(name)) {
          if (i + 1 >= args.size()) {
            throw new IllegalArgumentException("option --" + name + " needs a value");
          }
          options.put(name, args.get(++i));
        } else {
          throw new IllegalArgumentException("unknown option --" + name);
        }
      } else {
        positional.add(a);
      }
    }
  }

  private void put(String name, String value, Set<String> flags, Set<String> valued) {
    if (!flags.contains(name) && !valued.contains(name)) {
      throw new IllegalArgumentException("unknown option --" + name);
    }
    options.put(name, value);
  }

  public List<String> positional() {
    return positional;
  }

  public String option(String name, String fallback) {
    return options.getOrDefault(name, fallback);
  }

  public boolean flag(String name) {
    return "true".equals(options.get(name));
  }
}
