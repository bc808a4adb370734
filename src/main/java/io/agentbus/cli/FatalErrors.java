package io.agentbus.cli;

import io.vertx.core.Vertx;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryNotificationInfo;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import javax.management.NotificationEmitter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a process that ran out of memory exit, so that a supervisor restarts it, instead of
 * living on half dead (a closed listener, a JVM at 99 % CPU that ignores SIGTERM). The same
 * as {@code -XX:+ExitOnOutOfMemoryError}, for a user who runs the jar without it: an
 * {@link OutOfMemoryError} (or any {@link VirtualMachineError}) thrown anywhere — a handler on
 * an event loop, a worker, any other thread — halts the JVM with {@link #EXIT_CODE}, and so
 * does a heap still fuller than {@code THRASHING_FRACTION} after {@code THRASHING_COLLECTIONS}
 * collections within ten seconds (the GC thrashing that comes before the error, or instead of it).
 * Nothing committed is lost: the conversation store holds every finished turn.
 */
public final class FatalErrors {

  /** The exit code of a process halted for want of memory. */
  public static final int EXIT_CODE = 3;
  static final double THRASHING_FRACTION = 0.98;
  static final int THRASHING_COLLECTIONS = 10;
  static final long THRASHING_WINDOW_NANOS = 10_000_000_000L;

  /** Built up front: when it is needed, there may be no memory to build it. */
  private static final String FATAL_MESSAGE = "fatal: the JVM ran out of memory (or hit another VirtualMachineError);"
    + " exiting so that a supervisor can restart Agentbus (committed conversations are kept; consider a larger -Xmx)";
  private static final Logger LOG = LoggerFactory.getLogger(FatalErrors.class);
  private static volatile boolean installed;

  private FatalErrors() {
  }

  /** Installs the handlers for this JVM (once) and for {@code vertx}. */
  public static synchronized void install(Vertx vertx) {
    if (!installed) {
      installed = true;
      Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
      Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
        haltIfFatal(error);
        if (previous != null) {
          previous.uncaughtException(thread, error);
        }
      });
      watchHeap();
    }
    if (vertx != null) {
      vertx.exceptionHandler(error -> {
        haltIfFatal(error);
        // what Vert.x does for an unhandled exception when no handler is set
        LOG.error("Unhandled exception", error);
      });
    }
  }

  /** Halts the JVM when {@code error} is one it cannot live on after. */
  static void haltIfFatal(Throwable error) {
    try {
      for (Throwable t = error; t != null; t = t.getCause()) {
        if (t instanceof VirtualMachineError) {
          halt(FATAL_MESSAGE);
        }
      }
    } catch (Throwable e) {
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  private static void halt(String message) {
    // no logging framework here, and no allocation that matters: it may need memory there is not
    try {
      System.err.println(message);
      System.err.flush();
    } catch (Throwable ignored) {
      // exit all the same
    } finally {
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  private static void watchHeap() {
    boolean watching = false;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      long max = pool.getUsage().getMax();
      if (pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported() && max > 0
        && tenured(pool.getName())) {
        pool.setCollectionUsageThreshold((long) (max * THRASHING_FRACTION));
        watching = true;
      }
    }
    if (!watching) {
      return;
    }
    long[] recent = new long[THRASHING_COLLECTIONS];
    int[] next = {0};
    NotificationEmitter emitter = (NotificationEmitter) ManagementFactory.getMemoryMXBean();
    emitter.addNotificationListener((notification, handback) -> {
      if (!MemoryNotificationInfo.MEMORY_COLLECTION_THRESHOLD_EXCEEDED.equals(notification.getType())) {
        return;
      }
      long now = System.nanoTime();
      int i = next[0]++ % THRASHING_COLLECTIONS;
      long oldest = recent[(i + 1) % THRASHING_COLLECTIONS];
      recent[i] = now;
      if (next[0] >= THRASHING_COLLECTIONS && now - oldest < THRASHING_WINDOW_NANOS) {
        halt("fatal: the heap stayed over " + (int) (THRASHING_FRACTION * 100) + " % full after "
          + THRASHING_COLLECTIONS + " collections within " + THRASHING_WINDOW_NANOS / 1_000_000_000L
          + " s; exiting so that a supervisor can restart Agentbus (committed conversations are kept;"
          + " consider a larger -Xmx)");
      }
    }, null, null);
  }

  private static boolean tenured(String pool) {
    // G1 Old Gen, ZHeap / ZGC Old Generation, Tenured Gen, PS Old Gen, Shenandoah
    String n = pool.toLowerCase(Locale.ROOT);
    return n.contains("old") || n.contains("tenured") || n.contains("zheap") || n.contains("shenandoah");
  }
}
