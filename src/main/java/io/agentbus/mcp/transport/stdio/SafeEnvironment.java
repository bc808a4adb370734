package io.agentbus.mcp.transport.stdio;

import java.util.Map;
import java.util.Set;

/**
 * The environment a stdio MCP server child gets: a small set of harmless variables
 * inherited from the host (so host secrets such as API keys never leak to servers), plus
 * the {@code env} of its config.
 */
final class SafeEnvironment {

  static final Set<String> INHERITED = Set.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ");

  private SafeEnvironment() {
  }

  static void apply(Map<String, String> target, Map<String, String> host, Map<String, String> configured) {
    target.clear();
    host.forEach((k, v) -> {
      if (INHERITED.contains(k) || k.startsWith("LC_")) {
        target.put(k, v);
      }
    });
    target.putAll(configured);
  }
}
