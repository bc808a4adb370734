package io.agentbus.http;

import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bounded admission of turns for one API instance: at most {@code max} at once across the
 * instances that share {@code total} (more get 503 and {@code Retry-After}), one at a time per
 * conversation and tenant (a second gets 409 here without reaching the conversation service;
 * across instances the conversation's own claim answers 409), and none once draining. Touched
 * only on the verticle's context, but for the shared atomic count.
 */
final class Admission {

  private final int max;
  private final AtomicInteger total;
  private final AgentbusMetrics metrics;
  private final Set<String> running = new HashSet<>();
  private boolean draining;
  private Promise<Void> drained;

  Admission(int max, AtomicInteger total, AgentbusMetrics metrics) {
    this.max = max;
    this.total = total;
    this.metrics = metrics;
  }

  static String key(String tenant, String conversationId) {
    return (tenant == null ? "" : tenant) + '\u0000' + conversationId;
  }

  /** Admits a turn, or throws the {@link ApiError} that refuses it. */
  void admit(String key, String conversationId) {
    if (draining) {
      throw ApiError.of(503, "shutting down: no new turns are accepted");
    }
    if (running.contains(key)) {
      throw ApiError.of(409, "conversation '" + conversationId + "' is already running a turn");
    }
    if (total.incrementAndGet() > max) {
      int now = total.decrementAndGet();
      throw new ApiError(503, "overloaded", "overloaded: " + now + " turns running, the limit"
        + " (http.maxInFlightTurns); retry later");
    }
    running.add(key);
    metrics.httpTurnsInFlight(1);
  }

  /** Releases an admitted turn. */
  void release(String key) {
    if (running.remove(key)) {
      total.decrementAndGet();
      metrics.httpTurnsInFlight(-1);
    }
    if (drained != null && running.isEmpty()) {
      drained.tryComplete();
    }
  }

  int inFlight() {
    return running.size();
  }

  boolean draining() {
    return draining;
  }

  /** Refuses new turns from now on; completes when the running ones have finished. */
  Future<Void> drain() {
    draining = true;
    if (drained == null) {
      drained = Promise.promise();
    }
    if (running.isEmpty()) {
      drained.tryComplete();
    }
    return drained.future();
  }
}
