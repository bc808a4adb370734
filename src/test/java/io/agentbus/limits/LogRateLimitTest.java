package io.agentbus.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.LogCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** A flood of one kind of log line costs a few lines and a count. */
class LogRateLimitTest {

  private static final Logger LOG = LoggerFactory.getLogger(LogRateLimitTest.class);
  private static final long SECOND = 1_000_000_000L;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);
  private final List<Long> delays = new ArrayList<>();
  private final List<Runnable> timers = new ArrayList<>();

  private LogRateLimit limit(int maxLines, LogRateLimit.Scheduler scheduler) {
    return new LogRateLimit(LOG, Level.WARN, "s1", "garbage lines", maxLines, 10_000, scheduler, now::get);
  }

  private LogRateLimit.Scheduler recording() {
    return (delayMs, task) -> {
      delays.add(delayMs);
      timers.add(task);
    };
  }

  /** Logs {@code n} lines through the limit, as a caller would. */
  private int flood(LogRateLimit limit, int n) {
    int logged = 0;
    for (int i = 0; i < n; i++) {
      if (limit.permit()) {
        LOG.warn("[s1] garbage {}", i);
        logged++;
      }
    }
    return logged;
  }

  @Test
  void aFloodLogsTheFirstLinesOfAWindowAndCountsTheRest() {
    LogRateLimit limit = limit(5, null);
    assertEquals(5, flood(limit, 100_000));
    assertEquals(99_995, limit.suppressed());
    assertEquals(5, logs.count("garbage "), logs.lines()::toString);
    assertEquals(0, Suppressed.summaries(logs.lines()), "nothing is summed up before it is over");

    now.addAndGet(3 * SECOND);
    assertEquals(0, flood(limit, 10), "still the same window");
    now.addAndGet(7 * SECOND);
    assertEquals(5, flood(limit, 7), "a new window");
    assertTrue(logs.contains("WARN " + LogRateLimitTest.class.getName()
      + " [s1] suppressed 100005 similar warnings in the last 10 s (garbage lines)"), logs.lines()::toString);
    List<String> lines = logs.lines();
    int summary = indexOf(lines, "suppressed 100005");
    assertTrue(summary >= 0 && lines.get(summary + 1).contains("garbage 0"), "the summary comes before the next line: " + lines);

    limit.flush();
    assertEquals(2, limit.suppressed() - 100_005);
    assertEquals(100_007, Suppressed.count(logs.lines(), "s1", "garbage lines"));
    assertEquals(10, logs.count("] garbage "));
  }

  private static int indexOf(List<String> lines, String text) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void theSchedulerWritesTheSummaryWhenTheWindowEnds() {
    LogRateLimit limit = limit(2, recording());
    now.addAndGet(4 * SECOND);
    flood(limit, 1_000);
    assertEquals(List.of(6_000L), delays, "one timer, for the end of the window");

    now.addAndGet(6 * SECOND);
    timers.get(0).run();
    assertEquals(998, Suppressed.count(logs.lines(), "s1", "garbage lines"));
    assertTrue(logs.contains("[s1] suppressed 998 similar warnings in the last 6 s (garbage lines)"), logs.lines()::toString);
    timers.get(0).run();
    assertEquals(1, Suppressed.summaries(logs.lines()), "a summary is written once");

    flood(limit, 3);
    assertEquals(2, delays.size(), "suppressing again arms a new timer");
    limit.flush();
    limit.flush();
    assertEquals(999, Suppressed.count(logs.lines(), "s1", "garbage lines"));
    assertEquals(2, Suppressed.summaries(logs.lines()));
  }

  @Test
  void noSummaryWhenNothingWasSuppressed() {
    LogRateLimit limit = limit(5, recording());
    assertEquals(5, flood(limit, 5));
    limit.flush();
    now.addAndGet(60 * SECOND);
    assertEquals(5, flood(limit, 5));
    assertEquals(0, Suppressed.summaries(logs.lines()));
    assertEquals(List.of(), delays);
  }

  @Test
  void aSchedulerThatCannotScheduleLeavesTheSummaryToTheNextLine() {
    LogRateLimit limit = limit(1, (delayMs, task) -> {
      throw new java.util.concurrent.RejectedExecutionException("closed");
    });
    assertEquals(1, flood(limit, 4));
    now.addAndGet(10 * SECOND);
    assertEquals(1, flood(limit, 1));
    assertEquals(3, Suppressed.count(logs.lines(), "s1", "garbage lines"));
  }

  @Test
  void aLevelThatIsOffCountsNothing() {
    LogRateLimit limit = new LogRateLimit(LOG, Level.TRACE, "s1", "trace lines", 1, 10_000, null, now::get);
    assertFalse(LOG.isTraceEnabled(), "the test configuration logs INFO and above");
    for (int i = 0; i < 10; i++) {
      assertFalse(limit.permit());
    }
    assertEquals(0, limit.suppressed());
  }

  @Test
  void theSummaryHasTheLevelOfItsLines() {
    LogRateLimit info = new LogRateLimit(LOG, Level.INFO, "s1", "stderr lines", 1, 10_000, null, now::get);
    info.permit();
    info.permit();
    info.flush();
    assertTrue(logs.contains("INFO " + LogRateLimitTest.class.getName() + " [s1] suppressed 1 similar lines in the last 1 s (stderr lines)"),
      logs.lines()::toString);
    LogRateLimit error = new LogRateLimit(LOG, Level.ERROR, "s1", "log notifications", 1, 10_000, null, now::get);
    error.permit();
    error.permit();
    error.flush();
    assertTrue(logs.contains("ERROR " + LogRateLimitTest.class.getName() + " [s1] suppressed 1 similar errors"), logs.lines()::toString);
  }

  @Test
  void threadsSharingALimitLoseNoCount() throws InterruptedException {
    LogRateLimit limit = new LogRateLimit(LOG, Level.WARN, "s1", "shared", 5, 3_600_000, null, System::nanoTime);
    int threads = 4;
    int each = 50_000;
    LongAdder permitted = new LongAdder();
    CountDownLatch done = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        for (int i = 0; i < each; i++) {
          if (limit.permit()) {
            permitted.increment();
          }
        }
        done.countDown();
      });
      thread.start();
    }
    assertTrue(done.await(30, TimeUnit.SECONDS));
    assertEquals(5, permitted.sum(), "one window: exactly maxLines pass");
    assertEquals(threads * each - 5, limit.suppressed());
    limit.flush();
    assertEquals(threads * each - 5, Suppressed.count(logs.lines(), "s1", "shared"));
  }

  @Test
  void limitsAreAtLeastOneLineAndOneMillisecond() {
    assertThrows(IllegalArgumentException.class, () -> new LogRateLimit(LOG, Level.WARN, "s", "x", 0, 10, null, System::nanoTime));
    assertThrows(IllegalArgumentException.class, () -> new LogRateLimit(LOG, Level.WARN, "s", "x", 1, 0, null, System::nanoTime));
  }
}
