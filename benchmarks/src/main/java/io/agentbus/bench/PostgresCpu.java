package io.agentbus.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time of the local PostgreSQL server's processes (every process whose {@code comm} is
 * {@code postgres}: the postmaster, its background workers and one backend per connection),
 * read from {@code /proc/PID/stat}, which any user may read. With the database on the same two
 * cores, its CPU per conversation is part of what a PostgreSQL-backed subject costs the box. A
 * backend that ends during a phase takes its CPU with it (the subjects' pools keep their
 * connections for the whole phase). 0 where {@code /proc} is absent.
 */
final class PostgresCpu {

  private static final long TICK_NANOS = 10_000_000L;

  private PostgresCpu() {
  }

  /** @return the summed CPU time of the postgres processes alive now, in nanoseconds */
  static long nanos() {
    long ticks = 0;
    try (Stream<Path> all = Files.list(Path.of("/proc"))) {
      for (Path proc : all.toList()) {
        String name = proc.getFileName().toString();
        if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
          continue;
        }
        try {
          String stat = Files.readString(proc.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          if (open >= 0 && close > open && "postgres".equals(stat.substring(open + 1, close))) {
            ticks += JitCpu.ticksOf(stat);
          }
        } catch (IOException | RuntimeException gone) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks * TICK_NANOS;
  }
}
