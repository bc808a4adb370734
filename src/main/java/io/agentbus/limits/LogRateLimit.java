package io.agentbus.limits;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/**
 * Keeps one kind of log line that a peer can trigger at will (a garbage line, a response with
 * an unknown id, a log notification) from flooding the log: at most {@code maxLines} lines
 * per window of {@code windowMs}. The lines beyond are only counted, and one summary line
 * says how many there were, for example
 * {@code [files] suppressed 123456 similar warnings in the last 10 s (lines that are not JSON)}.
 * The summary comes before the next line that may be logged, when the window ends (if a
 * {@link Scheduler} is given) and at {@link #flush()} (when the connection closes).
 *
 * <pre>{@code
 * if (notJson.permit()) {
 *   LOG.warn("[{}] skipped a line that is not JSON: {}", name, preview(line));
 * }
 * }</pre>
 *
 * <p>Lock-free and safe to share between threads. A suppressed line costs a clock read and
 * a few uncontended atomic operations; nothing is formatted. Under contention a window may
 * admit a line more than {@code maxLines}. Nothing is counted while the logger's level
 * disables {@code level}: a line that would not be logged is not suppressed either.
 */
public final class LogRateLimit {

  /** Warnings of one kind a peer may cause per window before they are only counted. */
  public static final int DEFAULT_MAX_LINES = 5;
  /** The window. */
  public static final long DEFAULT_WINDOW_MS = 10_000;
  /**
   * Lines per window of a peer's own log output (a stdio server's stderr, its log
   * notifications): it says more than a warning about the peer, and a server's startup may
   * print a few dozen lines at once.
   */
  public static final int OUTPUT_MAX_LINES = 50;

  /** Runs a task once after a delay (a Vert.x timer): how a window's summary is written when it ends. */
  @FunctionalInterface
  public interface Scheduler {

    /**
     * Runs {@code task} once, {@code delayMs} from now, on any thread. May drop the task when
     * it cannot schedule it (the summary then waits for the next line or {@link #flush()}).
     */
    void schedule(long delayMs, Runnable task);
  }

  private final Logger logger;
  private final Level level;
  private final String server;
  private final String what;
  private final int maxLines;
  private final long windowNanos;
  private final Scheduler scheduler;
  private final LongSupplier nanoClock;
  private final AtomicLong windowStart;
  private final AtomicLong used = new AtomicLong();
  /** Suppressed since the last summary. */
  private final AtomicLong pending = new AtomicLong();
  private final AtomicLong pendingSince = new AtomicLong();
  private final AtomicLong total = new AtomicLong();

  /**
   * @param logger the logger the lines (and the summary) go to
   * @param level the level of the lines; the summary uses it too
   * @param server the server name the summary starts with, as {@code [server]}
   * @param what what the lines are about, for the summary ({@code lines that are not JSON})
   * @param maxLines lines logged per window, at least 1
   * @param windowMs the window, at least 1 ms
   * @param scheduler writes the summary when the window ends; {@code null}: only at the next
   *     logged line or {@link #flush()}
   * @param nanoClock {@link System#nanoTime()}, or a test clock
   */
  public LogRateLimit(Logger logger, Level level, String server, String what, int maxLines, long windowMs,
                      Scheduler scheduler, LongSupplier nanoClock) {
    if (maxLines < 1 || windowMs < 1) {
      throw new IllegalArgumentException("maxLines and windowMs must be at least 1: " + maxLines + ", " + windowMs);
    }
    this.logger = logger;
    this.level = level;
    this.server = server;
    this.what = what;
    this.maxLines = maxLines;
    this.windowNanos = windowMs * 1_000_000L;
    this.scheduler = scheduler;
    this.nanoClock = nanoClock;
    this.windowStart = new AtomicLong(nanoClock.getAsLong());
  }

  /**
   * A limit of {@link #DEFAULT_MAX_LINES} WARN lines per {@link #DEFAULT_WINDOW_MS}.
   *
   * @param scheduler writes the summary when the window ends; may be {@code null}
   */
  public static LogRateLimit warnings(Logger logger, String server, String what, Scheduler scheduler) {
    return lines(logger, Level.WARN, server, what, DEFAULT_MAX_LINES, scheduler);
  }

  /**
   * A limit of {@code maxLines} lines at {@code level} per {@link #DEFAULT_WINDOW_MS}.
   *
   * @param scheduler writes the summary when the window ends; may be {@code null}
   */
  public static LogRateLimit lines(Logger logger, Level level, String server, String what, int maxLines,
                                   Scheduler scheduler) {
    return new LogRateLimit(logger, level, server, what, maxLines, DEFAULT_WINDOW_MS, scheduler, System::nanoTime);
  }

  /**
   * Asks whether one more line may be logged now. When it may and lines were suppressed
   * before, their summary is logged first.
   *
   * @return {@code true}: log the line; {@code false}: it was counted as suppressed (or its
   *     level is off), do not log it
   */
  public boolean permit() {
    if (!logger.isEnabledForLevel(level)) {
      return false;
    }
    long now = nanoClock.getAsLong();
    long start = windowStart.get();
    if (now - start >= windowNanos && windowStart.compareAndSet(start, now)) {
      used.set(0);
      start = now;
    }
    if (used.incrementAndGet() <= maxLines) {
      if (pending.get() > 0) {
        summarize(now);
      }
      return true;
    }
    total.incrementAndGet();
    if (pending.getAndIncrement() == 0) {
      pendingSince.set(now);
      if (scheduler != null) {
        long delayMs = Math.max(1, (start + windowNanos - now + 999_999) / 1_000_000L);
        try {
          scheduler.schedule(delayMs, this::flush);
        } catch (RuntimeException e) {
          // no timer (Vert.x closed, say): the summary waits for the next line or flush()
        }
      }
    }
    return false;
  }

  /** Logs the summary of the lines suppressed since the last one, if there were any. */
  public void flush() {
    if (pending.get() > 0) {
      summarize(nanoClock.getAsLong());
    }
  }

  private void summarize(long now) {
    long since = pendingSince.get();
    long n = pending.getAndSet(0);
    if (n == 0) {
      return;
    }
    long seconds = Math.max(1, (now - since + 999_999_999L) / 1_000_000_000L);
    String noun = switch (level) {
      case ERROR -> "errors";
      case WARN -> "warnings";
      default -> "lines";
    };
    String format = "[{}] suppressed {} similar {} in the last {} s ({})";
    Object[] args = {server, n, noun, seconds, what};
    switch (level) {
      case ERROR -> logger.error(format, args);
      case WARN -> logger.warn(format, args);
      case INFO -> logger.info(format, args);
      case DEBUG -> logger.debug(format, args);
      default -> logger.trace(format, args);
    }
  }

  /** @return lines suppressed since this limit was created (summarized or not) */
  public long suppressed() {
    return total.get();
  }
}
