package io.agentbus.mcp.server;

import io.agentbus.bus.FailureCodes;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;

/**
 * Caps the tool calls running at once on one server; more wait in a bounded FIFO, each
 * with a timer so that a call never starts after its caller gave up. Confined to the
 * server verticle's context.
 */
final class CallGate {

  private final class Waiting {
    final Supplier<Future<JsonObject>> task;
    final Promise<JsonObject> promise = Promise.promise();
    long timer;

    Waiting(Supplier<Future<JsonObject>> task) {
      this.task = task;
    }
  }

  private final Vertx vertx;
  private final String server;
  private final int maxRunning;
  private final int maxQueued;
  private final Deque<Waiting> queue = new ArrayDeque<>();
  private int running;

  CallGate(Vertx vertx, String server, int maxRunning, int maxQueued) {
    this.vertx = vertx;
    this.server = server;
    this.maxRunning = maxRunning;
    this.maxQueued = maxQueued;
  }

  /** Runs the task now or when a slot frees up, within {@code maxWaitMs}. */
  Future<JsonObject> submit(Supplier<Future<JsonObject>> task, long maxWaitMs) {
    if (running < maxRunning) {
      return run(task);
    }
    if (queue.size() >= maxQueued) {
      return Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.QUEUE_FULL,
        "server '" + server + "': " + maxRunning + " calls running and " + maxQueued + " queued; try again later"));
    }
    Waiting w = new Waiting(task);
    w.timer = vertx.setTimer(maxWaitMs, t -> {
      if (queue.remove(w)) {
        w.promise.fail(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCodes.TIMEOUT,
          "server '" + server + "': no free call slot within " + maxWaitMs + " ms"));
      }
    });
    queue.addLast(w);
    return w.promise.future();
  }

  private Future<JsonObject> run(Supplier<Future<JsonObject>> task) {
    running++;
    Future<JsonObject> f;
    try {
      f = task.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.andThen(ar -> {
      running--;
      Waiting next = queue.pollFirst();
      if (next != null) {
        vertx.cancelTimer(next.timer);
        run(next.task).onComplete(next.promise);
      }
    });
  }

  /** Fails every queued call (running ones fail through their own connection). */
  void failQueued(Throwable cause) {
    Waiting w;
    while ((w = queue.pollFirst()) != null) {
      vertx.cancelTimer(w.timer);
      w.promise.fail(cause);
    }
  }

  int running() {
    return running;
  }

  int queued() {
    return queue.size();
  }
}
