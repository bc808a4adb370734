package io.agentbus.mcp.transport.stdio;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills every still-running MCP server child when the JVM exits, so a crashed or
 * interrupted host never leaves orphan servers behind.
 */
final class ChildProcessReaper {

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ChildProcessReaper::killAll, "agentbus-child-reaper"));
  }

  private ChildProcessReaper() {
  }

  static void track(Process process) {
    LIVE.add(process);
    process.onExit().thenRun(() -> LIVE.remove(process));
  }

  static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static void killAll() {
    for (Process p : LIVE) {
      kill(p);
    }
  }
}
