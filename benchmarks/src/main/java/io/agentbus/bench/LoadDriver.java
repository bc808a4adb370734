package io.agentbus.bench;

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

  /** What one load phase measured. */
  record Result(Histogram latencyUs, int completed, int failed, ProcessStats cost, long childCpuNanos, String firstError) {
  }

  private final Subject subject;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger completed = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicReference<String> firstError = new AtomicReference<>();
  private final Histogram histogram = new ConcurrentHistogram(3_600_000_000L, 3);
  private int n;
  private volatile long deadline;
  private CountDownLatch done;

  LoadDriver(Subject subject) {
    this.subject = subject;
  }

  /** Runs one phase and blocks the calling (harness) thread until it is over. */
  Result run(int n, int c, long maxMillis) throws InterruptedException {
    return run(n, c, maxMillis, 0);
  }

  /**
   * Runs one phase; the first C conversations start spread evenly over {@code rampMillis}
   * (0: all at once), so that a long-latency workload reaches a steady arrival rate instead of
   * measuring one thundering herd.
   */
  Result run(int n, int c, long maxMillis, long rampMillis) throws InterruptedException {
    this.n = n;
    next.set(0);
    completed.set(0);
    failed.set(0);
    histogram.reset();
    firstError.set(null);
    done = new CountDownLatch(1);
    deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
    ProcessHandle runtime = subject.runtimeProcess();
    ProcessStats before = ProcessStats.now(runtime);
    long childBefore = ProcessStats.childrenCpuNanos(runtime);
    int slots = Math.min(c, n);
    inFlight.addAndGet(slots);
    long rampStart = System.nanoTime();
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
    // Generous: the deadline only stops new starts; the last ones still finish.
    if (!done.await(maxMillis + 600_000, TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException(subject.name() + ": conversations still running long after the deadline");
    }
    ProcessStats cost = ProcessStats.now(runtime).minus(before);
    return new Result(histogram.copy(), completed.get(), failed.get(), cost, ProcessStats.childrenCpuNanos(runtime) - childBefore,
      firstError.get());
  }

  /** @return conversations currently running */
  int inFlight() {
    return inFlight.get();
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
    subject.conversation(i).whenComplete((r, err) -> {
      if (err == null) {
        histogram.recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
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
