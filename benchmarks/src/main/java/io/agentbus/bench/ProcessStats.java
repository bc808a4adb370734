package io.agentbus.bench;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * A snapshot of this process' CPU time and garbage collection pauses (count and summed time); the difference of two
 * snapshots is what a run cost. The mock model server and the MCP servers run in child
 * processes, so this is the runtime under test (plus the thin load driver).
 */
record ProcessStats(long wallNanos, long cpuNanos, long gcCount, long gcMillis) {

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
    return new ProcessStats(System.nanoTime(), cpuTime(), count, millis);
  }

  static long cpuTime() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /**
   * @return CPU time of this process' descendants so far (the mock model server, the MCP
   *     servers): what the same work costs outside the runtime, on the same cores
   */
  static long childrenCpuNanos() {
    return ProcessHandle.current().descendants()
      .mapToLong(p -> p.info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L)).sum();
  }

  ProcessStats minus(ProcessStats earlier) {
    return new ProcessStats(wallNanos - earlier.wallNanos, cpuNanos - earlier.cpuNanos, gcCount - earlier.gcCount,
      gcMillis - earlier.gcMillis);
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
