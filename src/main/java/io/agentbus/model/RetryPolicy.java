package io.agentbus.model;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry policy of the official Anthropic and OpenAI SDKs, shared by both clients.
 *
 * <ul>
 *   <li>Retried: connection errors and timeouts, HTTP 408, 409, 429 and every status &ge; 500
 *       (including 529); an {@code x-should-retry: true|false} response header overrides the
 *       status rules.
 *   <li>Delay: {@code retry-after-ms}, else {@code retry-after} (seconds or an HTTP date), when
 *       it is within (0, 60 s); otherwise {@code min(0.5 s * 2^retry, 8 s)} times a jitter factor
 *       in (0.75, 1].
 *   <li>Waiting uses {@link Vertx#setTimer}; nothing blocks.
 * </ul>
 */
public final class RetryPolicy {

  /** Delay of the first retry before jitter. */
  public static final long INITIAL_DELAY_MS = 500;
  /** Cap of the exponential delay before jitter. */
  public static final long MAX_DELAY_MS = 8_000;
  /** Server-requested delays at or above this are ignored in favour of the backoff. */
  public static final long MAX_RETRY_AFTER_MS = 60_000;

  private static final Logger log = LoggerFactory.getLogger(RetryPolicy.class);

  private final Vertx vertx;
  private final int maxRetries;

  /**
   * @param vertx the Vert.x instance whose timers are used
   * @param maxRetries retries after the first attempt, 0 or more
   */
  public RetryPolicy(Vertx vertx, int maxRetries) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must be >= 0");
    }
    this.vertx = vertx;
    this.maxRetries = maxRetries;
  }

  /**
   * @return retries after the first attempt
   */
  public int maxRetries() {
    return maxRetries;
  }

  /**
   * Whether an HTTP error response may be retried.
   *
   * @param status the HTTP status
   * @param headers the response headers
   * @return the {@code x-should-retry} verdict if present, else whether the status is 408, 409,
   *     429 or &ge; 500
   */
  public static boolean shouldRetry(int status, MultiMap headers) {
    String header = headers == null ? null : headers.get("x-should-retry");
    if ("true".equalsIgnoreCase(header)) {
      return true;
    }
    if ("false".equalsIgnoreCase(header)) {
      return false;
    }
    return status == 408 || status == 409 || status == 429 || status >= 500;
  }

  /**
   * The delay a server asked for through {@code retry-after-ms} or {@code retry-after}.
   *
   * @param headers the response headers
   * @return the delay in ms, or -1 if there is none or it cannot be parsed
   */
  public static long retryAfterMs(MultiMap headers) {
    if (headers == null) {
      return -1;
    }
    String ms = headers.get("retry-after-ms");
    if (ms != null) {
      try {
        return Math.round(Double.parseDouble(ms.trim()));
      } catch (NumberFormatException ignored) {
        // fall through to retry-after
      }
    }
    String after = headers.get("retry-after");
    if (after == null) {
      return -1;
    }
    try {
      return Math.round(Double.parseDouble(after.trim()) * 1000);
    } catch (NumberFormatException notSeconds) {
      try {
        ZonedDateTime at = ZonedDateTime.parse(after.trim(), DateTimeFormatter.RFC_1123_DATE_TIME);
        return Math.max(0, at.toInstant().toEpochMilli() - System.currentTimeMillis());
      } catch (DateTimeParseException notDate) {
        return -1;
      }
    }
  }

  /**
   * The default exponential backoff with jitter.
   *
   * @param retry the 0-based retry number
   * @return {@code min(500 ms * 2^retry, 8 s)} times a factor in (0.75, 1]
   */
  public static long backoffMs(int retry) {
    double base = Math.min(INITIAL_DELAY_MS * Math.pow(2, Math.min(retry, 30)), MAX_DELAY_MS);
    double jitter = 1 - ThreadLocalRandom.current().nextDouble() * 0.25;
    return Math.round(base * jitter);
  }

  /**
   * The delay before a retry: the server's if it is within (0, 60 s), else the backoff.
   *
   * @param retry the 0-based retry number
   * @param retryAfterMs the server-requested delay, or -1
   * @return the delay in ms
   */
  public static long delayMs(int retry, long retryAfterMs) {
    if (retryAfterMs > 0 && retryAfterMs < MAX_RETRY_AFTER_MS) {
      return retryAfterMs;
    }
    return backoffMs(retry);
  }

  /**
   * Runs an attempt, and again after a delay while it fails with a {@linkplain
   * ModelException#retryable() retryable} {@link ModelException} and the retry budget lasts.
   * When the budget is spent the last failure is returned, with its {@linkplain
   * ModelException#attempts() attempt count}.
   *
   * @param what a short description for the logs (never containing secrets)
   * @param attempt makes one attempt
   * @param <T> the result type
   * @return the first successful result, or the final failure
   */
  public <T> Future<T> execute(String what, Supplier<Future<T>> attempt) {
    Promise<T> promise = Promise.promise();
    run(what, attempt, 0, promise);
    return promise.future();
  }

  private <T> void run(String what, Supplier<Future<T>> attempt, int retry, Promise<T> promise) {
    Future<T> f;
    try {
      f = attempt.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(promise::complete, err -> {
      if (!(err instanceof ModelException me) || !me.retryable()) {
        promise.fail(err);
      } else if (retry >= maxRetries) {
        promise.fail(retry == 0 ? me : me.withAttempts(retry + 1));
      } else {
        long delay = delayMs(retry, me.retryAfterMs());
        log.info("{} failed ({}), retrying in {} ms (retry {}/{})", what, me.getMessage(), delay, retry + 1, maxRetries);
        vertx.setTimer(delay, id -> run(what, attempt, retry + 1, promise));
      }
    });
  }
}
