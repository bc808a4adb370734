package io.agentbus.mcp.server;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A server's {@code allowedTools} / {@code disabledTools}: exact names or {@code *} globs.
 * An empty allow-list allows every tool; the disable-list wins over the allow-list.
 */
public final class ToolFilter {

  private final Rules allowed;
  private final Rules disabled;

  public ToolFilter(List<String> allowed, List<String> disabled) {
    this.allowed = new Rules(allowed);
    this.disabled = new Rules(disabled);
  }

  /**
   * Exact names are looked up in a set; only real globs become regexes (a conversation's tool
   * selection builds one of these per conversation, so compiling a regex per name showed up in
   * the benchmarks).
   */
  private static final class Rules {
    private final Set<String> names = new HashSet<>();
    private final List<Pattern> globs = new ArrayList<>();

    Rules(List<String> patterns) {
      for (String p : patterns) {
        if (p.indexOf('*') < 0) {
          names.add(p);
        } else {
          globs.add(glob(p));
        }
      }
    }

    boolean isEmpty() {
      return names.isEmpty() && globs.isEmpty();
    }

    boolean matches(String toolName) {
      if (names.contains(toolName)) {
        return true;
      }
      for (Pattern p : globs) {
        if (p.matcher(toolName).matches()) {
          return true;
        }
      }
      return false;
    }
  }

  private static Pattern glob(String glob) {
    StringBuilder re = new StringBuilder();
    for (String part : glob.split("\\*", -1)) {
      if (re.length() > 0 || glob.startsWith("*")) {
        re.append(".*");
      }
      re.append(Pattern.quote(part));
    }
    return Pattern.compile(glob.equals("*") ? ".*" : re.toString());
  }

  /** @return whether the tool may be listed and called */
  public boolean allows(String toolName) {
    if (!allowed.isEmpty() && !allowed.matches(toolName)) {
      return false;
    }
    return !disabled.matches(toolName);
  }
}
