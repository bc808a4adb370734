package io.agentbus.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Collection;

/**
 * A snapshot of the runtime's CPU time and garbage collection pauses (count and summed time); the
 * difference of two snapshots is what a run cost. For in-process subjects the runtime is this
 * process (runtime plus the thin load driver; the mock model server and the MCP servers run in
 * child processes). For the {@code serve} subject it is that process, read from outside (for a
 * cluster, the sum of its nodes' processes), and
 * this process' CPU is the driver's ({@code driverCpuNanos}; GC figures are then unknown, -1).
 */
record ProcessStats(long wallNanos, long cpuNanos, long gcCount, long gcMillis, long driverCpuNanos) {

  /**
   * @param runtime the runtime's processes when it is not this one (one {@code serve}, or the
   *     nodes of a cluster: their CPU summed), or empty
   */
  static ProcessStats now(Collection<ProcessHandle> runtime) {
    if (runtime.isEmpty()) {
      return now();
    }
    return new ProcessStats(System.nanoTime(), cpuOf(runtime), -1, -1, cpuTime());
  }

  /** @return the summed CPU time of {@code processes} so far */
  static long cpuOf(Collection<ProcessHandle> processes) {
    return processes.stream().mapToLong(ProcessStats::cpuOf).sum();
  }

  static long cpuOf(ProcessHandle p) {
    return p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
  }

  static ProcessStats now() {
    long count = 0;
    long millis = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      // Concurrent cycles ("G1 Concurrent GC", ZGC "Cycles") run beside the application: count pauses only.
      if (gc.getName().contains("Concurrent") || gc.getName().contains("Cycles")) {
        continue;
      }
      count += Math.max(0, gc.getCollectionCount());
      millis += Math.max(0, gc.getCollectionTime());
    }
    return new ProcessStats(System.nanoTime(), cpuTime(), count, millis, 0);
  }

  static long cpuTime() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * @return CPU time of this process' descendants so far (the mock model server, the MCP
   *     servers): what the same work costs outside the runtime, on the same cores
   */
  static long childrenCpuNanos(Collection<ProcessHandle> runtime) {
    return ProcessHandle.current().descendants().filter(p -> !runtime.contains(p)).mapToLong(ProcessStats::cpuOf).sum();
  }

  ProcessStats minus(ProcessStats earlier) {
    return new ProcessStats(wallNanos - earlier.wallNanos, cpuNanos - earlier.cpuNanos,
      gcCount < 0 ? -1 : gcCount - earlier.gcCount, gcMillis < 0 ? -1 : gcMillis - earlier.gcMillis,
      driverCpuNanos - earlier.driverCpuNanos);
  }

  /** Used heap after two full collections (the harness thread may block: it is not an event loop). */
  static long liveHeapBytes() throws InterruptedException {
    for (int i = 0; i < 2; i++) {
      System.gc();
      Thread.sleep(50);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
