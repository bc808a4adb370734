package io.agentbus.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * A bus failure that says when to try again: an upstream rate limit ({@link
 * FailureCodes#QUEUE_FULL}, 429) or overload ({@link FailureCodes#UNAVAILABLE}, 503) that
 * outlasted the retries. Reply with it ({@code message.reply(new RetryLaterException(...))}):
 * on the local bus the requester fails with this very object, so {@link #retryAfterMs()}
 * reaches the HTTP API, which sends it on as {@code Retry-After}; across JVMs it arrives as a
 * plain {@link ReplyException} with the same code and message.
 */
public final class RetryLaterException extends ReplyException {

  private static final long serialVersionUID = 1L;

  private final long retryAfterMs;

  /**
   * @param failureCode one of {@link FailureCodes}
   * @param message what failed
   * @param retryAfterMs when to try again, in milliseconds ({@code <= 0}: unknown)
   */
  public RetryLaterException(int failureCode, String message, long retryAfterMs) {
    super(ReplyFailure.RECIPIENT_FAILURE, failureCode, message);
    this.retryAfterMs = retryAfterMs;
  }

  /** @return when to try again, in milliseconds, or {@code <= 0} when unknown */
  public long retryAfterMs() {
    return retryAfterMs;
  }

  /**
   * @param retryAfterMs a back-off in milliseconds
   * @return it in whole seconds, rounded up as {@code Retry-After} needs, or 0 when unknown
   */
  public static int seconds(long retryAfterMs) {
    return retryAfterMs <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, (retryAfterMs + 999) / 1000);
  }
}
