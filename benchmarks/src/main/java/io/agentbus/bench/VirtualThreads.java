package io.agentbus.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual threads when the JVM running the benchmarks has them (Java 21+; the module compiles
 * for 17, so they are reached by reflection).
 */
final class VirtualThreads {

  private VirtualThreads() {
  }

  static boolean available() {
    return Runtime.version().feature() >= 21;
  }

  /** @return a new virtual-thread-per-task executor */
  static ExecutorService perTask() {
    try {
      return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("virtual threads need Java 21+", e);
    }
  }
}
