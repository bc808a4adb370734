package io.agentbus.http;

import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.ReportedFailure;
import io.agentbus.bus.RetryLaterException;
import io.vertx.core.VertxException;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;

/**
 * An HTTP error answer: status, type and a message safe to show the caller. Thrown or used
 * to fail futures inside the API; {@link Responses#error} writes it as
 * {@code {"error": {"type", "message"}}}. No stack trace: these are expected outcomes.
 */
final class ApiError extends VertxException {

  private final int status;
  private final String type;
  private final int retryAfterSeconds;

  ApiError(int status, String type, String message) {
    this(status, type, message, 0);
  }

  private ApiError(int status, String type, String message, int retryAfterSeconds) {
    super(message, true);
    this.status = status;
    this.type = type;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** @return an error of that status with the usual type for it */
  static ApiError of(int status, String message) {
    return new ApiError(status, typeOf(status), message);
  }

  static ApiError badRequest(String message) {
    return of(400, message);
  }

  static ApiError notFound(String message) {
    return of(404, message);
  }

  int status() {
    return status;
  }

  String type() {
    return type;
  }

  /** @return the seconds an upstream asked the caller to wait, or 0 when it did not say */
  int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  JsonObject toJson() {
    JsonObject error = new JsonObject().put("type", type).put("message", getMessage());
    if (retryAfterSeconds > 0) {
      error.put("retryAfterSeconds", retryAfterSeconds);
    }
    return new JsonObject().put("error", error);
  }

  static String typeOf(int status) {
    return switch (status) {
      case 400 -> "invalid_request";
      case 401 -> "unauthorized";
      case 403 -> "forbidden";
      case 404 -> "not_found";
      case 405 -> "method_not_allowed";
      case 409 -> "conflict";
      case 413 -> "payload_too_large";
      case 415 -> "unsupported_media_type";
      case 429 -> "rate_limited";
      case 502 -> "upstream_error";
      case 503 -> "unavailable";
      case 504 -> "timeout";
      default -> status >= 500 ? "internal_error" : "invalid_request";
    };
  }

  /**
   * Maps a failed bus request: its {@code FailureCodes} pass through as HTTP statuses, a bus
   * timeout is 504 and no handler 503; anything else is a 500 whose detail stays in the log.
   *
   * @param what the service asked, for the messages (e.g. "the conversation service")
   */
  static ApiError fromBus(Throwable err, String what) {
    if (err instanceof ApiError e) {
      return e;
    }
    if (err instanceof ReportedFailure rf) {
      return of(rf.failureCode(), String.valueOf(rf.getMessage()));
    }
    if (err instanceof RetryLaterException rl) {
      return new ApiError(rl.failureCode(), typeOf(rl.failureCode()), String.valueOf(rl.getMessage()),
        RetryLaterException.seconds(rl.retryAfterMs()));
    }
    if (err instanceof ReplyException re) {
      switch (re.failureType()) {
        case TIMEOUT:
          return of(504, what + " did not answer in time");
        case NO_HANDLERS:
          return of(503, what + " is not running");
        case RECIPIENT_FAILURE:
          int code = re.failureCode();
          if (code == FailureCodes.BAD_REQUEST || code == FailureCodes.FORBIDDEN || code == FailureCodes.NOT_FOUND
            || code == FailureCodes.CONFLICT || code == FailureCodes.TOO_LARGE || code == FailureCodes.QUEUE_FULL
            || code == FailureCodes.UPSTREAM
            || code == FailureCodes.UNAVAILABLE || code == FailureCodes.TIMEOUT) {
            return of(code, String.valueOf(re.getMessage()));
          }
          break;
        default:
          break;
      }
    }
    return of(500, "internal error");
  }
}
