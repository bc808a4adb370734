package io.agentbus.mcp.transport.stdio;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kills every still-running MCP server child when the JVM exits, so a crashed or
 * interrupted host never leaves orphan servers behind.
 */
public final class ChildProcessReaper {

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
  private static volatile long graceMs;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(ChildProcessReaper::killAll, "agentbus-child-reaper"));
  }

  private ChildProcessReaper() {
  }

  /**
   * Lets the children up to {@code ms} to exit at JVM exit before they are killed, for a
   * host whose own shutdown hook stops them cleanly (hooks run concurrently).
   */
  public static void graceAtExit(long ms) {
    graceMs = ms;
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
    long deadline = System.nanoTime() + graceMs * 1_000_000L;
    for (Process p : LIVE) {
      long left = (deadline - System.nanoTime()) / 1_000_000L;
      try {
        if (left <= 0 || !p.waitFor(left, java.util.concurrent.TimeUnit.MILLISECONDS)) {
          kill(p);
        }
      } catch (InterruptedException e) {
        kill(p);
      }
    }
  }
}
