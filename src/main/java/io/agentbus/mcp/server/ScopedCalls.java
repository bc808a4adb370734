package io.agentbus.mcp.server;

import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;

/**
 * The {@code tools/call}s of a server whose {@code scope} is {@code tenant} or
 * {@code conversation}: each runs on its caller's own connection from
 * {@link ScopedConnections}, never on the verticle's connection (which then only lists the
 * tools). The same deadlines as a shared call: waiting for the connection to start and for a
 * call slot spends the call's timeout, within its hard limit. A call that names no tenant
 * (scope {@code tenant}) or no conversation (scope {@code conversation}) fails, not started.
 */
final class ScopedCalls {

  private final Authorizations authorizations;
  private final Vertx vertx;
  private final McpServerOptions options;
  private final String name;
  private final ScopedOptions scoped;
  private final ScopedConnections connections;
  private final CallGate gate;
  private final AgentbusMetrics metrics;
  /** {@code scope: conversation}: closes a deleted conversation's connection; else {@code null}. */
  private final MessageConsumer<JsonObject> deletions;

  /**
   * @param connector makes each connection's client ({@code null}: {@code McpClient.forTenant} with its
   *     options and the key's tenant, whose OAuth tokens it then sends)
   * @throws io.agentbus.options.ConfigException when a tenant placeholder is malformed or misplaced
   */
  ScopedCalls(Vertx vertx, McpServerOptions options, Tenants tenants, ScopedConnector connector, long stableAfterMs,
              Authorizations authorizations) {
    this.vertx = vertx;
    this.authorizations = authorizations;
    this.options = options;
    this.name = options.getName();
    this.scoped = new ScopedOptions(options, tenants);
    this.connections = new ScopedConnections(vertx, options, tenants, scoped::resolve,
      connector != null ? connector : (key, resolved) -> McpClient.forTenant(vertx, resolved, key.tenant()), stableAfterMs);
    this.gate = new CallGate(vertx, name, options.getMaxConcurrentCalls(), options.getMaxQueuedCalls());
    this.metrics = AgentbusMetrics.get(vertx);
    this.deletions = options.getScope() != McpServerOptions.Scope.CONVERSATION ? null
      : vertx.eventBus().<JsonObject>consumer(Addresses.CONVERSATION_DELETED, m -> {
        if (m.body() != null && m.body().getValue("id") instanceof String id) {
          connections.conversationDeleted(new ScopeKey(m.body().getString("tenant"), id));
        }
      });
  }

  /** @return the options of the verticle's own connection, which lists the tools as no tenant */
  McpServerOptions listingOptions() {
    return scoped.listing();
  }

  /** Runs one call on its caller's connection and answers the message. */
  void call(Message<JsonObject> msg, ToolCallRequest req, long timeoutMs, long hardLimitMs) {
    long arrived = System.nanoTime();
    ScopeKey key;
    if (options.getScope() == McpServerOptions.Scope.CONVERSATION) {
      if (req.conversationId() == null) {
        msg.fail(FailureCodes.FORBIDDEN, McpServerVerticle.NOT_STARTED + "server '" + name
          + "': its scope is 'conversation' and the call names no conversation");
        return;
      }
      key = new ScopeKey(req.tenant(), req.conversationId());
    } else {
      key = new ScopeKey(req.tenant(), null);
    }
    long startBy = arrived + Math.min(timeoutMs, hardLimitMs) * 1_000_000L;
    long hardAt = arrived + hardLimitMs * 1_000_000L;
    connections.acquire(key, timeoutMs).onComplete(acquired -> {
      if (acquired.failed()) {
        reply(msg, req, acquired);
        return;
      }
      ScopedConnections.Connection c = acquired.result();
      long startNanos = System.nanoTime();
      ProgressForwarder[] forwarder = new ProgressForwarder[1];
      gate.submit(ignoredLeftMs -> {
        long left = (startBy - System.nanoTime()) / 1_000_000L;
        if (c.client.status() != McpClient.Status.READY) {
          return Future.failedFuture(failure(FailureCodes.UNAVAILABLE, McpServerVerticle.NOT_STARTED + "server '" + name
            + "' " + key.describe() + ": the connection closed before the call could start"));
        }
        if (left < 1) {
          return Future.failedFuture(failure(FailureCodes.TIMEOUT, McpServerVerticle.NOT_STARTED + "server '" + name
            + "': the call's time ran out before it could start"));
        }
        CallOptions callOptions = new CallOptions().setTimeoutMs(left)
          .setMaxTotalTimeoutMs(Math.max(1, (hardAt - System.nanoTime()) / 1_000_000L)).setResetTimeoutOnProgress(true);
        if (req.progressAddress() != null) {
          JsonObject base = req.progressFields() == null ? new JsonObject() : req.progressFields().copy();
          forwarder[0] = new ProgressForwarder(vertx, req.progressAddress(), base.put("server", name).put("tool", req.name()));
          callOptions.setProgressHandler(forwarder[0]::onProgress);
        }
        ServerRequests.Caller caller = c.requests.begin(req, hardAt);
        callOptions.setCaller(caller);
        return c.client.callTool(req.name(), req.arguments(), callOptions).andThen(ar -> c.requests.end(caller));
      }, Math.max(1, (startBy - System.nanoTime()) / 1_000_000L)).onComplete(ar -> {
        if (forwarder[0] != null) {
          forwarder[0].close();
        }
        connections.release(c);
        metrics.toolCall(name, req.name(), startNanos, ar);
        reply(msg, req, ar);
      });
    });
  }

  private void reply(Message<JsonObject> msg, ToolCallRequest req, io.vertx.core.AsyncResult<?> ar) {
    if (ar.succeeded()) {
      msg.reply(ar.result(), SharedJsonCodec.shared());
      return;
    }
    ReplyException f = ToolCallFailures.of(ar.cause(), req, authorizations);
    msg.fail(f.failureCode(), f.getMessage());
  }

  /** @return the scoped connections' counts, and the calls running and queued on them */
  JsonObject status() {
    return connections.status().put("runningCalls", gate.running()).put("queuedCalls", gate.queued());
  }

  /** Fails the queued calls and closes every connection (stdio children exit). */
  Future<Void> close() {
    gate.failQueued(failure(FailureCodes.UNAVAILABLE, McpServerVerticle.NOT_STARTED + "server '" + name + "' is stopping"));
    if (deletions != null) {
      deletions.unregister();
    }
    return connections.close();
  }

  private static ReplyException failure(int code, String message) {
    return new ReplyException(ReplyFailure.RECIPIENT_FAILURE, code, message);
  }
}
