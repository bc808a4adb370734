package io.agentbus.bench;

import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Closed-loop load: at most {@code c} conversations in flight, {@code n} in all or until
 * {@code maxMillis} elapsed (no new one starts after that), each started as soon as another
 * completes. Latencies go to an HdrHistogram in microseconds. The subject's completion thread
 * starts the next conversation, so the driver adds no thread of its own.
 */
final class LoadDriver {

  /**
   * What one load phase measured.
   *
   * @param steadyLatencyUs the conversations started after the ramp (all of them without a ramp)
   */
  record Result(Histogram latencyUs, Histogram steadyLatencyUs, int completed, int failed, ProcessStats cost,
      long childCpuNanos, String firstError) {
  }

  private final Subject subject;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final Histogram histogram = new ConcurrentHistogram(3_600_000_000L, 3);
  private final Histogram steady = new ConcurrentHistogram(3_600_000_000L, 3);
  private int n;
  private volatile long deadline;
  private volatile long steadyFrom;
  private CountDownLatch done;

  LoadDriver(Subject subject) {
    this.subject = subject;
  }

  /** Runs one phase and blocks the calling (harness) thread until it is over. */
  Result run(int n, int c, long maxMillis) throws InterruptedException {
    return run(n, c, maxMillis, 0, () -> { });
  }

  /**
   * Runs one phase; the first C conversations start spread evenly over {@code rampMillis}
   * (0: all at once), so that a long-latency workload reaches a steady arrival rate instead of
   * measuring one thundering herd. {@code afterRamp} runs on this thread once the ramp is over;
   * the conversations started from then on are also recorded in {@link Result#steadyLatencyUs}.
   */
  Result run(int n, int c, long maxMillis, long rampMillis, Runnable afterRamp) throws InterruptedException {
    this.n = n;
    next.set(0);
    completed.set(0);
    failed.set(0);
    histogram.reset();
    steady.reset();
    firstError.set(null);
    done = new CountDownLatch(1);
    deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    Collection<ProcessHandle> runtime = List.copyOf(subject.runtimeProcesses().values());
    ProcessStats before = ProcessStats.now(runtime);
    long childBefore = ProcessStats.childrenCpuNanos(runtime);
    int slots = Math.min(c, n);
    inFlight.addAndGet(slots);
    long rampStart = System.nanoTime();
    steadyFrom = rampStart + TimeUnit.MILLISECONDS.toNanos(rampMillis);
    for (int i = 0; i < slots; i++) {
      if (rampMillis > 0) {
        long due = rampStart + TimeUnit.MILLISECONDS.toNanos(rampMillis) * i / slots;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          TimeUnit.NANOSECONDS.sleep(wait);
        }
      }
      launch();
    }
    long rampLeft = steadyFrom - System.nanoTime();
    if (rampLeft > 0) {
      done.await(rampLeft, TimeUnit.NANOSECONDS);
    }
    afterRamp.run();
    // Generous: the deadline only stops new starts; the last ones still finish.
    if (!done.await(maxMillis + 600_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(subject.name() + ": conversations still running long after the deadline");
    }
    ProcessStats cost = ProcessStats.now(runtime).minus(before);
    return new Result(histogram.copy(), steady.copy(), completed.get(), failed.get(), cost,
      ProcessStats.childrenCpuNanos(runtime) - childBefore, firstError.get());
  }

  /** Starts no new conversation from now on; the running ones finish. */
  void stop() {
    deadline = System.nanoTime();
  }

  private void launch() {
    int i = next.getAndIncrement();
    if (i >= n || System.nanoTime() - deadline > 0) {
      if (inFlight.decrementAndGet() == 0) {
        done.countDown();
      }
      return;
    }
    long start = System.nanoTime();
    CompletionStage<?> conversation;
    try {
      conversation = subject.conversation(i);
    } catch (RuntimeException e) {
      // Thrown inside a completion callback it would vanish, and the slot with it: count it as failed.
      conversation = CompletableFuture.failedFuture(e);
    }
    conversation.whenComplete((r, err) -> {
      if (err == null) {
        long us = Math.max(1, (System.nanoTime() - start) / 1_000);
        histogram.recordValue(us);
        if (start - steadyFrom >= 0) {
          steady.recordValue(us);
        }
        completed.incrementAndGet();
      } else {
        // Stop starting new ones when everything fails (a broken setup), instead of spinning.
        if (failed.incrementAndGet() >= 100 && completed.get() == 0) {
          deadline = System.nanoTime();
        }
        firstError.compareAndSet(null, String.valueOf(err));
      }
      launch();
    });
  }
}
