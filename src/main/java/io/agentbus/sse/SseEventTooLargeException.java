package io.agentbus.sse;

import io.vertx.core.VertxException;

/** Reported by {@link SseParser} when an event grows beyond the configured maximum size. */
public final class SseEventTooLargeException extends VertxException {

  private final int limit;

  /**
   * @param limit the configured maximum event size in bytes
   */
  public SseEventTooLargeException(int limit) {
    super("SSE event exceeds the maximum event size of " + limit + " bytes; the event was skipped", true);
    this.limit = limit;
  }

  /**
   * @return the configured maximum event size in bytes
   */
  public int limit() {
    return limit;
  }
}
