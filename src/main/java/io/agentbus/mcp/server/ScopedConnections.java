package io.agentbus.mcp.server;

import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scoped connections of one server, one per {@link ScopeKey}, opened on the key's first
 * call. Bounded: at most {@code maxConnections} are kept; a new key at the cap closes the least
 * recently used connection that nothing uses or waits for, and is refused ({@code 429}, not
 * started) when every one is in use. A connection without a call for {@code idleTimeoutMs}
 * closes. A failed start (or a crash within {@link McpServerVerticle#STABLE_AFTER_MS} of
 * being ready) is remembered for the restart backoff, during which the key's calls fail at
 * once with the reason; a connection that crashes after that reopens on the next call.
 * Everything runs on the owning verticle's context.
 */
final class ScopedConnections {

  private static final Logger LOG = LoggerFactory.getLogger(ScopedConnections.class);

  /** One connection, or a failed attempt kept for its backoff. */
  static final class Connection {
    final ScopeKey key;
    final McpClient client;
    /** Consecutive failures of this key before this attempt. */
    final int failuresBefore;
    final LinkedHashSet<Waiter> waiters = new LinkedHashSet<>();
    /** Routes this connection's server requests (elicitation, roots, sampling) to the calls' conversations. */
    ServerRequests requests;
    long readyNanos = -1;
    int busy;
    long idleTimer = -1;
    boolean removed;
    /** Why the attempt failed, or {@code null}. */
    String failure;
    int failures;
    long retryAtNanos;
    /** Its conversation was deleted: it closes as soon as it is idle. */
    boolean closeWhenIdle;

    Connection(ScopeKey key, McpClient client, int failuresBefore) {
      this.key = key;
      this.client = client;
      this.failuresBefore = failuresBefore;
    }

    boolean ready() {
      return readyNanos >= 0 && failure == null;
    }

    boolean idle() {
      return busy == 0 && waiters.isEmpty();
    }
  }

  private static final class Waiter {
    final Promise<Connection> promise = Promise.promise();
    long timer;
  }

  private final Vertx vertx;
  private final Tenants tenants;
  private final String name;
  private final McpServerOptions options;
  private final Function<ScopeKey, McpServerOptions> resolver;
  private final ScopedConnector connector;
  private final RestartBackoff backoff;
  private final long stableAfterMs;
  private final AgentbusMetrics metrics;
  /** Access order: the first entry is the least recently used. */
  private final LinkedHashMap<ScopeKey, Connection> connections = new LinkedHashMap<>(16, 0.75f, true);
  private int waiting;
  private int closing;
  private boolean closed;

  /**
   * @param resolver the options of a key's connection; may throw (the call then fails, not started)
   * @param stableAfterMs how long a connection must stay up for its crash not to count as a failure
   */
  ScopedConnections(Vertx vertx, McpServerOptions options, Tenants tenants, Function<ScopeKey, McpServerOptions> resolver,
                    ScopedConnector connector, long stableAfterMs) {
    this.vertx = vertx;
    this.tenants = tenants;
    this.name = options.getName();
    this.options = options;
    this.resolver = resolver;
    this.connector = connector;
    this.backoff = new RestartBackoff(options.getRestartInitialBackoffMs(), options.getRestartMaxBackoffMs());
    this.stableAfterMs = stableAfterMs;
    this.metrics = AgentbusMetrics.get(vertx);
  }

  /**
   * Leases the key's READY connection, opening it when there is none; {@link #release} it
   * after the call. Fails with a {@link ReplyException} whose message starts with
   * {@link McpServerVerticle#NOT_STARTED}.
   *
   * @param timeoutMs how long the call may wait for the connection to be READY
   */
  Future<Connection> acquire(ScopeKey key, long timeoutMs) {
    if (closed) {
      return failed(FailureCodes.UNAVAILABLE, "server '" + name + "' is stopping");
    }
    Connection c = connections.get(key);
    int failures = 0;
    if (c != null && c.failure != null) {
      long waitMs = (c.retryAtNanos - System.nanoTime()) / 1_000_000L;
      if (waitMs > 0) {
        return failed(FailureCodes.UNAVAILABLE, "server '" + name + "' " + key.describe() + " failed to start ("
          + c.failure + "); next attempt in " + waitMs + " ms");
      }
      failures = c.failures;
      remove(c);
      c = null;
    }
    if (c == null) {
      McpServerOptions resolved;
      try {
        resolved = resolver.apply(key);
      } catch (RuntimeException e) {
        return failed(FailureCodes.FORBIDDEN, "server '" + name + "': " + e.getMessage());
      }
      if (!makeRoom()) {
        return failed(FailureCodes.QUEUE_FULL, "server '" + name + "' has " + connections.size()
          + " connections open (maxConnections) and every one is in use; try again later");
      }
      try {
        c = open(key, resolved, failures);
      } catch (RuntimeException e) {
        return failed(FailureCodes.UNAVAILABLE, "server '" + name + "' " + key.describe() + " cannot start: " + e.getMessage());
      }
    }
    if (c.ready()) {
      lease(c);
      return Future.succeededFuture(c);
    }
    return await(c, timeoutMs);
  }

  /** Ends a lease: the connection closes once idle for {@code idleTimeoutMs}. */
  void release(Connection c) {
    c.busy--;
    if (c.idle() && !c.removed) {
      scheduleIdleClose(c, c.closeWhenIdle ? 1 : options.getIdleTimeoutMs());
    }
  }

  /**
   * The conversation of {@code key} was deleted: its connection closes now (the child exits),
   * or as soon as its last call ends.
   */
  void conversationDeleted(ScopeKey key) {
    Connection c = connections.get(key);
    if (c == null || c.removed) {
      return;
    }
    if (c.idle()) {
      closeConnection(c, "its conversation was deleted", "closed_deleted");
    } else {
      c.closeWhenIdle = true;
    }
  }

  /** @return counts for the server's status: {@code {scope, connections, starting, inUse, failed, closing, maxConnections, idleTimeoutMs}} */
  JsonObject status() {
    int ready = 0;
    int starting = 0;
    int inUse = 0;
    int failed = 0;
    for (Connection c : connections.values()) {
      if (c.failure != null) {
        failed++;
      } else if (c.ready()) {
        ready++;
      } else {
        starting++;
      }
      if (c.busy > 0) {
        inUse++;
      }
    }
    return new JsonObject().put("scope", options.getScope().name().toLowerCase()).put("connections", ready)
      .put("starting", starting).put("inUse", inUse).put("failed", failed).put("closing", closing)
      .put("maxConnections", options.getMaxConnections()).put("idleTimeoutMs", options.getIdleTimeoutMs());
  }

  /** Closes every connection (stdio children exit); calls waiting for one fail. */
  Future<Void> close() {
    closed = true;
    List<Future<Void>> all = new ArrayList<>();
    for (Connection c : new ArrayList<>(connections.values())) {
      all.add(closeConnection(c, "the server is stopping", "closed_stopping"));
    }
    return Future.join(all).mapEmpty();
  }

  private Connection open(ScopeKey key, McpServerOptions resolved, int failuresBefore) {
    Connection c = new Connection(key, connector.open(key, resolved), failuresBefore);
    c.requests = new ServerRequests(vertx, resolved, tenants, method -> c.client.notify(method, null));
    c.client.serverRequestHandler(c.requests);
    connections.put(key, c);
    LOG.info("[{}] opening a connection {} ({} open)", name, key.describe(), connections.size());
    metrics.scopedConnection(name, "opened");
    c.client.closeHandler(err -> onExit(c, err));
    c.client.connect().onComplete(ar -> {
      if (c.removed) {
        return; // closed meanwhile: its waiters were failed then
      }
      if (ar.succeeded()) {
        c.readyNanos = System.nanoTime();
        List<Waiter> all = new ArrayList<>(c.waiters);
        c.waiters.clear();
        waiting -= all.size();
        for (Waiter w : all) {
          vertx.cancelTimer(w.timer);
          lease(c);
          w.promise.complete(c);
        }
        if (c.idle()) {
          scheduleIdleClose(c, options.getIdleTimeoutMs());
        }
      } else if (Authorizations.isRequired(ar.cause())) {
        // nobody to blame and nothing to back off from: the next call tries again, with the tokens once authorized
        metrics.scopedConnection(name, "unauthorized");
        remove(c);
        failWaiters(c, ar.cause());
        c.client.close();
      } else {
        metrics.scopedConnection(name, "failed");
        failed(c, ar.cause().getMessage());
        c.client.close();
      }
    });
    return c;
  }

  /** A READY connection ended on its own (crash, exit): in-flight calls fail with it. */
  private void onExit(Connection c, Throwable err) {
    if (c.removed || !c.ready()) {
      return; // closed by us, or still starting: the failed connect reports it
    }
    long livedMs = (System.nanoTime() - c.readyNanos) / 1_000_000L;
    LOG.warn("[{}] connection {} ended after {} ms: {}", name, c.key.describe(), livedMs, err.getMessage());
    metrics.scopedConnection(name, "exited");
    if (livedMs >= stableAfterMs) {
      remove(c);
    } else {
      failed(c, "exited " + livedMs + " ms after it was ready: " + err.getMessage());
    }
    c.client.close();
  }

  /** Keeps the key's failure for its backoff; the calls waiting for it fail. */
  private void failed(Connection c, String why) {
    c.failure = why;
    c.failures = c.failuresBefore + 1;
    long delay = backoff.delayMs(c.failures);
    c.retryAtNanos = System.nanoTime() + delay * 1_000_000L;
    LOG.warn("[{}] connection {} failed ({} in a row; next attempt after {} ms): {}", name, c.key.describe(),
      c.failures, delay, why);
    failWaiters(c, FailureCodes.UNAVAILABLE, "server '" + name + "' " + c.key.describe() + " failed to start (" + why + ")");
    scheduleIdleClose(c, Math.max(delay, options.getIdleTimeoutMs()));
  }

  private void lease(Connection c) {
    c.busy++;
    vertx.cancelTimer(c.idleTimer);
    c.idleTimer = -1;
  }

  private Future<Connection> await(Connection c, long timeoutMs) {
    if (waiting >= options.getMaxQueuedCalls()) {
      return failed(FailureCodes.QUEUE_FULL, "server '" + name + "': " + waiting
        + " calls already wait for connections to start (maxQueuedCalls); try again later");
    }
    Waiter w = new Waiter();
    long start = System.nanoTime();
    w.timer = vertx.setTimer(Math.max(1, timeoutMs), t -> {
      if (c.waiters.remove(w)) {
        waiting--;
        w.promise.fail(failure(FailureCodes.TIMEOUT, "server '" + name + "' " + c.key.describe()
          + ": the connection was still starting after " + (System.nanoTime() - start) / 1_000_000L + " ms"));
        if (c.idle() && c.ready()) {
          scheduleIdleClose(c, options.getIdleTimeoutMs());
        }
      }
    });
    c.waiters.add(w);
    waiting++;
    vertx.cancelTimer(c.idleTimer);
    c.idleTimer = -1;
    return w.promise.future();
  }

  /** At the cap, closes the least recently used idle connection; {@code false} when all are in use. */
  private boolean makeRoom() {
    if (connections.size() < options.getMaxConnections()) {
      return true;
    }
    for (Connection c : connections.values()) {
      if (c.idle()) {
        closeConnection(c, "least recently used, maxConnections (" + options.getMaxConnections() + ") reached", "closed_lru");
        return true;
      }
    }
    return false;
  }

  private void scheduleIdleClose(Connection c, long afterMs) {
    vertx.cancelTimer(c.idleTimer);
    c.idleTimer = vertx.setTimer(afterMs, t -> {
      c.idleTimer = -1;
      if (!c.removed && c.idle()) {
        if (c.failure != null) {
          remove(c);
        } else {
          closeConnection(c, "idle for " + afterMs + " ms", "closed_idle");
        }
      }
    });
  }

  private Future<Void> closeConnection(Connection c, String why, String event) {
    remove(c);
    failWaiters(c, FailureCodes.UNAVAILABLE, "server '" + name + "' " + c.key.describe() + ": the connection closed ("
      + why + ")");
    if (c.failure == null) {
      LOG.info("[{}] closing the connection {}: {}", name, c.key.describe(), why);
      metrics.scopedConnection(name, event);
    }
    closing++;
    return c.client.close().onComplete(ar -> closing--);
  }

  private void remove(Connection c) {
    if (!c.removed) {
      c.removed = true;
      connections.remove(c.key, c);
      vertx.cancelTimer(c.idleTimer);
      c.idleTimer = -1;
    }
  }

  private void failWaiters(Connection c, int code, String message) {
    failWaiters(c, failure(code, message));
  }

  private void failWaiters(Connection c, Throwable cause) {
    List<Waiter> all = new ArrayList<>(c.waiters);
    c.waiters.clear();
    waiting -= all.size();
    for (Waiter w : all) {
      vertx.cancelTimer(w.timer);
      w.promise.fail(cause);
    }
  }

  private static <T> Future<T> failed(int code, String message) {
    return Future.failedFuture(failure(code, message));
  }

  private static ReplyException failure(int code, String message) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, McpServerVerticle.NOT_STARTED + message);
  }
}
