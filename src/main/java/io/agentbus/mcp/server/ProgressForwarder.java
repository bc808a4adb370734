package io.agentbus.mcp.server;

import io.agentbus.mcp.ProgressUpdate;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * Publishes one call's progress on its {@code progressAddress}, at most one message per
 * {@link #MIN_INTERVAL_MS}: a server that floods progress costs the bus (and the SSE clients
 * behind it) a few messages a second; the latest update wins and is published when the interval
 * is over. Every update still restarts the call's timeout (that happens in the client, before
 * this). Confined to the server verticle's context.
 */
final class ProgressForwarder {

  /** Shortest gap between two published updates of one call. */
  static final long MIN_INTERVAL_MS = 200;

  private final Vertx vertx;
  private final String address;
  private final JsonObject base;
  private long lastNanos;
  private boolean published;
  private ProgressUpdate pending;
  private long timer = -1;
  private boolean closed;

  /**
   * @param base {@code {server, tool}} plus the request's {@code progressFields}; copied into
   *     every message
   */
  ProgressForwarder(Vertx vertx, String address, JsonObject base) {
    this.vertx = vertx;
    this.address = address;
    this.base = base;
  }

  void onProgress(ProgressUpdate update) {
    if (closed) {
      return;
    }
    long sinceMs = (System.nanoTime() - lastNanos) / 1_000_000L;
    if (!published || sinceMs >= MIN_INTERVAL_MS) {
      publish(update);
      return;
    }
    pending = update;
    if (timer < 0) {
      timer = vertx.setTimer(Math.max(1, MIN_INTERVAL_MS - sinceMs), t -> {
        timer = -1;
        ProgressUpdate p = pending;
        pending = null;
        if (p != null && !closed) {
          publish(p);
        }
      });
    }
  }

  private void publish(ProgressUpdate update) {
    published = true;
    lastNanos = System.nanoTime();
    JsonObject msg = base.copy().put("progress", update.progress());
    if (update.total() != null) {
      msg.put("total", update.total());
    }
    if (update.message() != null) {
      msg.put("message", update.message());
    }
    vertx.eventBus().publish(address, msg);
  }

  /** The call is over: a held-back update is dropped (the call's result follows). */
  void close() {
    closed = true;
    pending = null;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }
}
