package io.agentbus.mcp.transport.http;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.json.JsonObject;

/**
 * One re-initialization after the server dropped the session: the client's
 * {@code initialize} is replayed under an id of our own (its answer never reaches the
 * client), then {@code notifications/initialized} is sent when the client had sent it. The
 * GET stream is not part of it. It must finish within a deadline: a server that accepts the
 * new {@code initialize} without answering it (HTTP 202) fails it at once, one that never
 * answers fails it when the deadline passes. Failures are {@link McpException}s of kind
 * {@code CONNECTION_CLOSED} that say why. Confined to the transport's context.
 */
final class SessionRenewal {

  /** Where the renewal is in its life. */
  enum Status {
    /** Created, not started. */
    NEW,
    /** The new {@code initialize} is on its way or being answered. */
    INITIALIZING,
    /** Answered; {@code notifications/initialized} is on its way. */
    CONFIRMING,
    /** A new session is ready. */
    DONE,
    /** It failed, timed out or was aborted. */
    FAILED
  }

  private final StreamableHttpTransport t;
  private final String id;
  private final String key;
  private final JsonObject initializeParams;
  private final boolean sendInitialized;
  private final long deadlineMs;
  private final Promise<Void> done;
  private Status status = Status.NEW;
  private PostExchange current;
  private long timer = -1;

  SessionRenewal(StreamableHttpTransport transport, String id, JsonObject initializeParams, boolean sendInitialized,
                 long deadlineMs) {
    this.t = transport;
    this.id = id;
    this.key = JsonRpc.idKey(id);
    this.initializeParams = initializeParams;
    this.sendInitialized = sendInitialized;
    this.deadlineMs = deadlineMs;
    this.done = transport.context().promise();
  }

  /** Starts the renewal; see {@link #future()}. */
  Future<Void> run() {
    if (status != Status.NEW) {
      return done.future();
    }
    status = Status.INITIALIZING;
    timer = t.vertx().setTimer(Math.max(1, deadlineMs), tid -> {
      timer = -1;
      fail("no new session within " + deadlineMs + " ms (connectTimeoutMs)", null);
    });
    PostExchange init = new PostExchange(t, JsonRpc.request(id, "initialize", initializeParams), this::onMessage);
    current = init;
    init.start().result().onComplete(ar -> {
      if (status != Status.INITIALIZING) {
        return;
      }
      if (ar.failed()) {
        fail("the new initialize failed: " + ar.cause().getMessage(), ar.cause());
      } else {
        // over without its answer: a 202 or an empty body; no stream is left to carry it
        fail("the server accepted the new initialize without answering it (HTTP 202 or an empty body)", null);
      }
    });
    return done.future();
  }

  /** @return completes when a new session is ready; fails when it cannot be set up */
  Future<Void> future() {
    return done.future();
  }

  /** @return where the renewal is in its life */
  Status status() {
    return status;
  }

  private void onMessage(JsonObject msg) {
    if (!JsonRpc.isResponse(msg) || !key.equals(JsonRpc.idKey(msg.getValue("id")))) {
      t.deliver(msg);
      return;
    }
    if (status != Status.INITIALIZING) {
      return;
    }
    if (!(msg.getValue("result") instanceof JsonObject)) {
      fail("the new initialize was refused: " + msg.getValue("error"), null);
      return;
    }
    if (!sendInitialized) {
      succeed();
      return;
    }
    status = Status.CONFIRMING;
    PostExchange initialized = new PostExchange(t, JsonRpc.notification("notifications/initialized", null), t::deliver);
    current = initialized;
    initialized.start().result().onComplete(ar -> {
      if (status != Status.CONFIRMING) {
        return;
      }
      if (ar.succeeded()) {
        succeed();
      } else {
        fail("notifications/initialized failed: " + ar.cause().getMessage(), ar.cause());
      }
    });
  }

  private void succeed() {
    cancelTimer();
    status = Status.DONE;
    done.tryComplete();
  }

  private void fail(String reason, Throwable cause) {
    abort(new McpException(Kind.CONNECTION_CLOSED, "server '" + t.name() + "': the session expired and could not be renewed: "
      + reason, cause));
  }

  /** Stops the renewal (deadline, closing transport); its exchange is reset. */
  void abort(Throwable cause) {
    if (status == Status.DONE || status == Status.FAILED) {
      return;
    }
    status = Status.FAILED;
    cancelTimer();
    if (current != null) {
      current.abort(cause);
    }
    done.tryFail(cause);
  }

  private void cancelTimer() {
    if (timer >= 0) {
      t.vertx().cancelTimer(timer);
      timer = -1;
    }
  }
}
