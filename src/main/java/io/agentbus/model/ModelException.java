package io.agentbus.model;

import io.agentbus.metrics.MetricsOutcome;
import io.vertx.core.VertxException;

/**
 * A failed model call. Carries the {@link Kind}, the HTTP status (0 when there was no response),
 * the API's own error type and message, and the provider's request id. Messages never contain the
 * API key.
 */
public final class ModelException extends VertxException implements MetricsOutcome {

  /** What went wrong. */
  public enum Kind {
    /** 400 (and other unclassified 4xx): the request was rejected. */
    INVALID_REQUEST,
    /** 401: missing or wrong API key. */
    AUTHENTICATION,
    /** 403. */
    PERMISSION,
    /** 404: unknown model or path. */
    NOT_FOUND,
    /** 409. */
    CONFLICT,
    /** 413. */
    REQUEST_TOO_LARGE,
    /** 429. */
    RATE_LIMITED,
    /** 529, or an {@code overloaded_error}. */
    OVERLOADED,
    /** Other 5xx, or an {@code api_error}. */
    SERVER_ERROR,
    /** 408, or no bytes within the request timeout. */
    TIMEOUT,
    /** The connection could not be made or broke. */
    CONNECTION,
    /** An {@code error} event arrived in the middle of a stream. */
    STREAM_ERROR,
    /** The response could not be understood. */
    PROTOCOL,
    /** The client was closed. */
    CLOSED
  }

  private final Kind kind;
  private final int statusCode;
  private final String errorType;
  private final String apiMessage;
  private final String requestId;
  private final boolean retryable;
  private final long retryAfterMs;
  private final int attempts;

  /**
   * @param kind what went wrong
   * @param statusCode the HTTP status, 0 if none
   * @param errorType the API's error type (e.g. {@code invalid_request_error}), may be null
   * @param apiMessage the API's error message (or a description), may be null
   * @param requestId the provider's request id, may be null
   * @param retryable whether the retry policy may try again
   * @param retryAfterMs the delay the server asked for, or -1
   * @param cause the cause, may be null
   */
  public ModelException(Kind kind, int statusCode, String errorType, String apiMessage, String requestId,
      boolean retryable, long retryAfterMs, Throwable cause) {
    this(kind, statusCode, errorType, apiMessage, requestId, retryable, retryAfterMs, 1, cause);
  }

  private ModelException(Kind kind, int statusCode, String errorType, String apiMessage, String requestId,
      boolean retryable, long retryAfterMs, int attempts, Throwable cause) {
    super(format(kind, statusCode, errorType, apiMessage, requestId, attempts), cause);
    this.attempts = attempts;
    this.kind = kind;
    this.statusCode = statusCode;
    this.errorType = errorType;
    this.apiMessage = apiMessage;
    this.requestId = requestId;
    this.retryable = retryable;
    this.retryAfterMs = retryAfterMs;
  }

  /**
   * A failure without an HTTP response.
   *
   * @param kind what went wrong
   * @param message description
   * @param retryable whether the retry policy may try again
   * @param cause the cause, may be null
   */
  public ModelException(Kind kind, String message, boolean retryable, Throwable cause) {
    this(kind, 0, null, message, null, retryable, -1, cause);
  }

  private static String format(Kind kind, int status, String type, String msg, String requestId, int attempts) {
    StringBuilder sb = new StringBuilder(kind.name());
    if (status > 0) {
      sb.append(" (HTTP ").append(status).append(')');
    }
    if (type != null) {
      sb.append(' ').append(type);
    }
    if (msg != null) {
      sb.append(": ").append(msg);
    }
    if (requestId != null) {
      sb.append(" [request-id ").append(requestId).append(']');
    }
    if (attempts > 1) {
      sb.append(" (gave up after ").append(attempts).append(" attempts)");
    }
    return sb.toString();
  }

  /**
   * Copies this exception with another retryable flag.
   *
   * @param retryable the new flag
   * @return a copy
   */
  public ModelException withRetryable(boolean retryable) {
    if (retryable == this.retryable) {
      return this;
    }
    return new ModelException(kind, statusCode, errorType, apiMessage, requestId, retryable, retryAfterMs,
        attempts, getCause());
  }

  /**
   * Copies this exception, recording how many attempts were made before giving up.
   *
   * @param attempts the number of attempts
   * @return a copy
   */
  public ModelException withAttempts(int attempts) {
    return new ModelException(kind, statusCode, errorType, apiMessage, requestId, retryable, retryAfterMs,
        attempts, getCause());
  }

  /**
   * @return how many attempts were made (1 unless the retry policy gave up after retrying)
   */
  public int attempts() {
    return attempts;
  }

  /**
   * @return what went wrong
   */
  public Kind kind() {
    return kind;
  }

  /** @return the kind, lower case: the {@code outcome} or {@code status} label of its metrics */
  @Override
  public String metricsOutcome() {
    return kind().name().toLowerCase();
  }


  /**
   * @return the HTTP status, 0 when there was no HTTP error response
   */
  public int statusCode() {
    return statusCode;
  }

  /**
   * @return the API's error type (e.g. {@code rate_limit_error}), or null
   */
  public String errorType() {
    return errorType;
  }

  /**
   * @return the API's error message (or a description), or null
   */
  public String apiMessage() {
    return apiMessage;
  }

  /**
   * @return the provider's request id ({@code request-id} / {@code x-request-id}), or null
   */
  public String requestId() {
    return requestId;
  }

  /**
   * @return whether the retry policy considered this failure retryable
   */
  public boolean retryable() {
    return retryable;
  }

  /**
   * @return the delay the server asked for in ms ({@code retry-after-ms} / {@code retry-after}),
   *     or -1
   */
  public long retryAfterMs() {
    return retryAfterMs;
  }
}
