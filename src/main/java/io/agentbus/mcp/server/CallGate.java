package io.agentbus.mcp.server;

import io.agentbus.bus.FailureCodes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.function.LongFunction;

/**
 * Caps the tool calls running at once on one server; more wait in a FIFO (bounded only as a
 * memory guard) for a free slot, within their own deadline: a call that has waited starts
 * with what is left of its timeout, and one whose timeout passes while it waits fails with a
 * timeout and never starts (its message starts with {@link McpServerVerticle#NOT_STARTED}).
 * Confined to the server verticle's context.
 */
final class CallGate {

  private static final class Waiting {
    final LongFunction<Future<JsonObject>> task;
    final long timeoutMs;
    final long deadlineNanos;
    final Promise<JsonObject> promise = Promise.promise();
    long timer;

    Waiting(LongFunction<Future<JsonObject>> task, long timeoutMs) {
      this.task = task;
      this.timeoutMs = timeoutMs;
      this.deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
    }
  }

  private final Vertx vertx;
  private final String server;
  private final int maxRunning;
  private final int maxQueued;
  /** Insertion order is the FIFO; removal of a timed-out call is O(1). */
  private final LinkedHashSet<Waiting> queue = new LinkedHashSet<>();
  private int running;
  private boolean starting;

  CallGate(Vertx vertx, String server, int maxRunning, int maxQueued) {
    this.vertx = vertx;
    this.server = server;
    this.maxRunning = maxRunning;
    this.maxQueued = maxQueued;
  }

  /**
   * Runs the task now or when a slot frees up, within {@code timeoutMs} in all.
   *
   * @param task starts the call, given the milliseconds left of its timeout
   */
  Future<JsonObject> submit(LongFunction<Future<JsonObject>> task, long timeoutMs) {
    if (running < maxRunning) {
      return run(task, timeoutMs);
    }
    if (queue.size() >= maxQueued) {
      return Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.QUEUE_FULL,
        McpServerVerticle.NOT_STARTED + "server '" + server + "': " + maxRunning + " calls running and " + maxQueued + " queued; try again later"));
    }
    Waiting w = new Waiting(task, timeoutMs);
    w.timer = vertx.setTimer(timeoutMs, t -> {
      if (queue.remove(w)) {
        w.promise.fail(timedOut(w));
      }
    });
    queue.add(w);
    return w.promise.future();
  }

  private ReplyException timedOut(Waiting w) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.TIMEOUT,
      McpServerVerticle.NOT_STARTED + "server '" + server + "': no call slot became free within " + w.timeoutMs
        + " ms (all " + maxRunning + " busy, maxConcurrentCalls)");
  }

  private Future<JsonObject> run(LongFunction<Future<JsonObject>> task, long timeoutMs) {
    running++;
    Future<JsonObject> f;
    try {
      f = task.apply(timeoutMs);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> {
      running--;
      startNext();
    });
  }

  /** Fills the free slots from the queue; a loop, not a recursion, when calls complete at once. */
  private void startNext() {
    if (starting) {
      return;
    }
    starting = true;
    try {
      while (running < maxRunning && !queue.isEmpty()) {
        Iterator<Waiting> it = queue.iterator();
        Waiting next = it.next();
        it.remove();
        vertx.cancelTimer(next.timer);
        long leftMs = (next.deadlineNanos - System.nanoTime()) / 1_000_000L;
        if (leftMs < 1) {
          // its timer is due but has not fired yet
          next.promise.fail(timedOut(next));
        } else {
          run(next.task, leftMs).onComplete(next.promise);
        }
      }
    } finally {
      starting = false;
    }
  }

  /** Fails every queued call (running ones fail through their own connection). */
  void failQueued(Throwable cause) {
    for (Waiting w : queue) {
      vertx.cancelTimer(w.timer);
      w.promise.fail(cause);
    }
    queue.clear();
  }

  int running() {
    return running;
  }

  int queued() {
    return queue.size();
  }
}
