package io.agentbus.mock;

import java.util.Locale;

/**
 * A fault the mock injects into one request. Spec syntax (used in options, {@link
 * MockModelServer#enqueueFaults} and the {@code x-mock-fault} request header):
 * {@code kind[;retry-after=S][;retry-after-ms=MS][;should-retry=true|false][;latency=MS][;after=N]} where
 * kind is one of {@code 429}, {@code 529} (503 on the OpenAI endpoint), {@code 500},
 * {@code broken-stream} (connection closed in the middle of the SSE body; a plain request gets the
 * connection closed before any response), {@code stream-error} (an {@code error} event in the
 * middle of the stream; a plain request gets a 529/503) or {@code latency} (only delays). For the
 * two stream faults, {@code after=N} puts the fault after the first N events instead of halfway
 * ({@code after=1}: right after {@code message_start}, before any delta).
 *
 * @param kind the fault kind
 * @param retryAfter the {@code retry-after} header value, or null
 * @param retryAfterMs the {@code retry-after-ms} header value, or null
 * @param shouldRetry the {@code x-should-retry} header value, or null
 * @param latencyMs extra latency before the fault, 0 if none
 * @param afterEvents the stream events sent before a stream fault, or -1 for halfway
 */
public record MockFault(Kind kind, String retryAfter, String retryAfterMs, Boolean shouldRetry, long latencyMs,
                        int afterEvents) {

  /** Fault kinds. */
  public enum Kind {
    /** 429 rate_limit_error. */
    RATE_LIMIT,
    /** 529 overloaded_error (OpenAI endpoint: 503). */
    OVERLOADED,
    /** 500 api_error. */
    API_ERROR,
    /** The connection is closed in the middle of the stream. */
    BROKEN_STREAM,
    /** An error event is sent in the middle of the stream. */
    STREAM_ERROR,
    /** No error, only the extra latency. */
    LATENCY
  }

  /**
   * @param spec the fault spec, see the class comment
   * @return the fault
   * @throws IllegalArgumentException if the spec is not understood
   */
  public static MockFault parse(String spec) {
    String[] parts = spec.trim().split(";");
    Kind kind = switch (parts[0].trim().toLowerCase(Locale.ROOT)) {
      case "429" -> Kind.RATE_LIMIT;
      case "529", "503", "overloaded" -> Kind.OVERLOADED;
      case "500" -> Kind.API_ERROR;
      case "broken-stream" -> Kind.BROKEN_STREAM;
      case "stream-error" -> Kind.STREAM_ERROR;
      case "latency" -> Kind.LATENCY;
      default -> throw new IllegalArgumentException("unknown fault '" + parts[0] + "'");
    };
    String retryAfter = null;
    String retryAfterMs = null;
    Boolean shouldRetry = null;
    long latency = 0;
    int after = -1;
    for (int i = 1; i < parts.length; i++) {
      String[] kv = parts[i].trim().split("=", 2);
      String value = kv.length > 1 ? kv[1].trim() : "";
      switch (kv[0].trim().toLowerCase(Locale.ROOT)) {
        case "retry-after" -> retryAfter = value;
        case "retry-after-ms" -> retryAfterMs = value;
        case "should-retry" -> shouldRetry = Boolean.parseBoolean(value);
        case "latency" -> latency = Long.parseLong(value);
        case "after" -> after = Math.max(0, Integer.parseInt(value));
        default -> throw new IllegalArgumentException("unknown fault parameter '" + kv[0] + "'");
      }
    }
    return new MockFault(kind, retryAfter, retryAfterMs, shouldRetry, latency, after);
  }
}
