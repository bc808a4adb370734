package io.agentbus.mcp.server;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A server's {@code allowedTools} / {@code disabledTools}: exact names or {@code *} globs.
 * An empty allow-list allows every tool; the disable-list wins over the allow-list.
 */
public final class ToolFilter {

  private final List<Pattern> allowed;
  private final List<Pattern> disabled;

  public ToolFilter(List<String> allowed, List<String> disabled) {
    this.allowed = allowed.stream().map(ToolFilter::glob).toList();
    this.disabled = disabled.stream().map(ToolFilter::glob).toList();
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
    if (!allowed.isEmpty() && allowed.stream().noneMatch(p -> p.matcher(toolName).matches())) {
      return false;
    }
    return disabled.stream().noneMatch(p -> p.matcher(toolName).matches());
  }
}
