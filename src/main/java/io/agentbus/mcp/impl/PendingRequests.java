package io.agentbus.mcp.impl;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.ProgressUpdate;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Requests waiting for their response on one connection, each with its own timer.
 * Removal from the map decides every race: the response, the timer and a connection
 * failure each remove the entry first, and whoever gets {@code null} does nothing.
 * Confined to the connection's context.
 */
final class PendingRequests {

  /** One request in flight. */
  static final class Entry {
    final Object id;
    final String key;
    final String method;
    final Promise<JsonObject> promise;
    final long timeoutMs;
    final long startNanos = System.nanoTime();
    final long deadlineNanos;
    final boolean resetOnProgress;
    final Handler<ProgressUpdate> progress;
    long timer = -1;
    /** Who made the request (a tool call's {@code CallOptions.caller}), or {@code null}. */
    Object caller;
    /** Server requests of this call waiting for the user: while any does, only the hard deadline runs. */
    int holds;

    Entry(Object id, String key, String method, Promise<JsonObject> promise, long timeoutMs, long maxTotalMs,
          boolean resetOnProgress, Handler<ProgressUpdate> progress) {
      this.id = id;
      this.key = key;
      this.method = method;
      this.promise = promise;
      this.timeoutMs = timeoutMs;
      this.deadlineNanos = startNanos + Math.max(timeoutMs, maxTotalMs) * 1_000_000L;
      this.resetOnProgress = resetOnProgress;
      this.progress = progress;
    }
  }

  private final Vertx vertx;
  private final Context context;
  private final String server;
  private final int max;
  private final Consumer<Entry> timedOut;
  private final Map<String, Entry> entries = new HashMap<>();

  PendingRequests(Vertx vertx, Context context, String server, int max, Consumer<Entry> timedOut) {
    this.vertx = vertx;
    this.context = context;
    this.server = server;
    this.max = max;
    this.timedOut = timedOut;
  }

  /** Registers a request and arms its timer; fails at once when the map is full. */
  Future<JsonObject> add(Object id, String key, String method, long timeoutMs, long maxTotalMs,
                         boolean resetOnProgress, Handler<ProgressUpdate> progress) {
    if (entries.size() >= max) {
      return Future.failedFuture(new McpException(Kind.QUEUE_FULL,
        "server '" + server + "': " + max + " requests already pending"));
    }
    Entry e = new Entry(id, key, method, Promise.promise(), timeoutMs, maxTotalMs, resetOnProgress, progress);
    entries.put(key, e);
    arm(e, timeoutMs);
    return e.promise.future();
  }

  private void arm(Entry e, long delayMs) {
    e.timer = vertx.setTimer(Math.max(1, delayMs), t -> {
      if (entries.remove(e.key) == e) {
        // the server is told first (notifications/cancelled), then the caller
        timedOut.accept(e);
        e.promise.fail(new McpException(Kind.TIMEOUT, e.method + " to server '" + server + "' timed out after "
          + elapsedMs(e) + " ms"));
      }
    });
  }

  private static long elapsedMs(Entry e) {
    return (System.nanoTime() - e.startNanos) / 1_000_000L;
  }

  /** @return the entry for the key, removed, with its timer cancelled; or {@code null} */
  Entry remove(String key) {
    Entry e = entries.remove(key);
    if (e != null) {
      vertx.cancelTimer(e.timer);
    }
    return e;
  }

  /**
   * A progress update for a pending request: restarts its timer when it resets on progress
   * (never past its hard deadline, {@code maxTotalMs} after it was sent), then hands the
   * update to its handler, if it has one. Unknown tokens are ignored.
   */
  void progress(String key, ProgressUpdate update) {
    Entry e = entries.get(key);
    if (e == null) {
      return;
    }
    if (e.resetOnProgress && e.holds == 0) {
      long remainingMs = (e.deadlineNanos - System.nanoTime()) / 1_000_000L;
      if (remainingMs > 0) {
        vertx.cancelTimer(e.timer);
        arm(e, Math.min(e.timeoutMs, remainingMs));
      }
    }
    if (e.progress != null) {
      e.progress.handle(update);
    }
  }

  /** Fails every pending request with {@code cause}, exactly once each. */
  void failAll(Throwable cause) {
    List<Entry> all = new ArrayList<>(entries.values());
    entries.clear();
    for (Entry e : all) {
      vertx.cancelTimer(e.timer);
      e.promise.tryFail(cause);
    }
  }

  /** Tags a pending request with who made it. */
  void tag(String key, Object caller) {
    Entry e = entries.get(key);
    if (e != null) {
      e.caller = caller;
    }
  }

  /** @return the key of the pending request tagged {@code caller}, or {@code null} */
  String keyOf(Object caller) {
    if (caller == null) {
      return null;
    }
    for (Entry e : entries.values()) {
      if (e.caller == caller) {
        return e.key;
      }
    }
    return null;
  }

  /**
   * The server waits for its user on behalf of this request (an elicitation): its idle timeout
   * stops until {@link #release}; its hard deadline still applies.
   */
  void hold(String key) {
    Entry e = key == null ? null : entries.get(key);
    if (e != null && e.holds++ == 0) {
      vertx.cancelTimer(e.timer);
      arm(e, Math.max(1, (e.deadlineNanos - System.nanoTime()) / 1_000_000L));
    }
  }

  /** Ends a {@link #hold}: the idle timeout starts again, in full (never past the hard deadline). */
  void release(String key) {
    Entry e = key == null ? null : entries.get(key);
    if (e != null && e.holds > 0 && --e.holds == 0) {
      vertx.cancelTimer(e.timer);
      arm(e, Math.max(1, Math.min(e.timeoutMs, (e.deadlineNanos - System.nanoTime()) / 1_000_000L)));
    }
  }

  /** @return the tag of the pending request with this key, or {@code null} */
  Object callerOf(String key) {
    Entry e = key == null ? null : entries.get(key);
    return e == null ? null : e.caller;
  }

  int size() {
    return entries.size();
  }
}
