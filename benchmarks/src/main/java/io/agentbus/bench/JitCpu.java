package io.agentbus.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time of a JVM's JIT compiler threads ({@code C1 CompilerThre...}, {@code C2 CompilerThre...}),
 * read from {@code /proc/PID/task}: how much of a process' CPU still goes to compiling. A
 * fresh JVM on two busy cores compiles for tens of seconds; a measured phase that starts
 * before that is over counts the JIT as the runtime's cost. 0 where {@code /proc} is absent.
 */
final class JitCpu {

  /** Clock ticks per second of {@code /proc/.../stat} (USER_HZ, 100 on Linux). */
  private static final long TICK_NANOS = 10_000_000L;

  private JitCpu() {
  }

  /** @return the JIT threads' CPU time so far, in nanoseconds */
  static long nanos(long pid) {
    Path tasks = Path.of("/proc", String.valueOf(pid), "task");
    if (!Files.isDirectory(tasks)) {
      return 0;
    }
    long ticks = 0;
    try (Stream<Path> all = Files.list(tasks)) {
      for (Path task : all.toList()) {
        try {
          String name = Files.readString(task.resolve("comm"));
          if (name.startsWith("C") && name.contains("CompilerThre")) {
            ticks += ticksOf(Files.readString(task.resolve("stat")));
          }
        } catch (IOException gone) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks * TICK_NANOS;
  }

  /** @return the JIT threads' CPU time so far summed over {@code processes}, in nanoseconds */
  static long nanos(java.util.Collection<ProcessHandle> processes) {
    return processes.stream().mapToLong(p -> nanos(p.pid())).sum();
  }

  /** utime + stime of one {@code stat} line (fields 14 and 15, after the parenthesised name). */
  static long ticksOf(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }
}
