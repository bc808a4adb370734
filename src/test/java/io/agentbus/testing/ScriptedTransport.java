package io.agentbus.testing;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.transport.McpTransport;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * An in-memory {@link McpTransport} a test scripts by hand: it records every message the
 * client sends, delivers server messages on the client's context when the test says so,
 * answers chosen methods on its own, and can hold its start, fail sends or end the
 * connection from the server's side. Bind it to the context the client is created on.
 */
public final class ScriptedTransport implements McpTransport {

  private final Context context;
  private final List<JsonObject> sent = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final Map<String, Function<JsonObject, JsonObject>> responders = new HashMap<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private Promise<Void> heldStart;
  private boolean holdStart;
  private volatile boolean failSends;
  private volatile boolean closed;
  private volatile int closeCalls;

  private record Waiter(String method, int nth, CompletableFuture<JsonObject> future) {
  }

  public ScriptedTransport(Context context) {
    this.context = context;
  }

  /** Answers every request for {@code method} with {@code result(request)}, as a later event. */
  public synchronized ScriptedTransport respondTo(String method, Function<JsonObject, JsonObject> result) {
    responders.put(method, result);
    return this;
  }

  /** Leaves {@link #start} pending until {@link #completeStart()}. */
  public ScriptedTransport holdStart() {
    holdStart = true;
    return this;
  }

  /** Completes a held {@link #start}, on the context. */
  public Future<Void> completeStart() {
    return onContext(() -> heldStart.complete());
  }

  /** Makes every later {@link #send} fail (or succeed again). */
  public ScriptedTransport failSends(boolean fail) {
    failSends = fail;
    return this;
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    checkContext("start");
    messageHandler = handler;
    if (holdStart) {
      heldStart = Promise.promise();
      return heldStart.future();
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> send(JsonObject message) {
    checkContext("send");
    if (closed) {
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "scripted transport is closed"));
    }
    if (failSends) {
      return Future.failedFuture(new McpException(Kind.TRANSPORT, "scripted send failure"));
    }
    JsonObject copy = message.copy();
    sent.add(copy);
    Function<JsonObject, JsonObject> responder;
    synchronized (this) {
      String method = copy.getString("method");
      responder = method != null && copy.getValue("id") != null ? responders.get(method) : null;
      waiters.removeIf(w -> {
        if (w.method.equals(method) && sent(method).size() >= w.nth) {
          w.future.complete(sent(method).get(w.nth - 1));
          return true;
        }
        return false;
      });
    }
    if (responder != null) {
      context.runOnContext(v -> handle(new JsonObject().put("jsonrpc", "2.0").put("id", copy.getValue("id"))
        .put("result", responder.apply(copy))));
    }
    return Future.succeededFuture();
  }

  @Override
  public McpTransport closeHandler(Handler<Throwable> handler) {
    checkContext("closeHandler");
    closeHandler = handler;
    return this;
  }

  @Override
  public Future<Void> close() {
    checkContext("close");
    closeCalls++;
    closed = true;
    return Future.succeededFuture();
  }

  @Override
  public JsonObject describe() {
    return new JsonObject().put("transport", "scripted");
  }

  /**
   * Delivers a server message on the context; completes once the client has handled it.
   * Called on the context (from a handler), it delivers right away, at that exact moment.
   */
  public Future<Void> deliver(JsonObject message) {
    return onContext(() -> handle(message));
  }

  /** Delivers a result for {@code id}. */
  public Future<Void> respond(Object id, JsonObject result) {
    return deliver(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result));
  }

  /** Delivers a notification. */
  public Future<Void> notify(String method, JsonObject params) {
    JsonObject msg = new JsonObject().put("jsonrpc", "2.0").put("method", method);
    return deliver(params == null ? msg : msg.put("params", params));
  }

  /** Ends the connection from the server's side: calls the close handler with {@code cause}. */
  public Future<Void> closeFromServer(Throwable cause) {
    return onContext(() -> {
      closed = true;
      if (closeHandler != null) {
        closeHandler.handle(cause);
      }
    });
  }

  private void handle(JsonObject message) {
    if (messageHandler == null) {
      violations.add("a message was delivered before start()");
      return;
    }
    messageHandler.handle(message.copy());
  }

  /** Completes with the {@code nth} (1-based) message the client sends with {@code method}. */
  public synchronized CompletableFuture<JsonObject> sentMessage(String method, int nth) {
    List<JsonObject> already = sent(method);
    if (already.size() >= nth) {
      return CompletableFuture.completedFuture(already.get(nth - 1));
    }
    CompletableFuture<JsonObject> f = new CompletableFuture<>();
    waiters.add(new Waiter(method, nth, f));
    return f;
  }

  /** @return every message sent so far */
  public List<JsonObject> sent() {
    return List.copyOf(sent);
  }

  /** @return the messages sent so far with {@code method} */
  public List<JsonObject> sent(String method) {
    return sent.stream().filter(m -> method.equals(m.getValue("method"))).toList();
  }

  /** @return the responses the client sent (to server requests) */
  public List<JsonObject> sentResponses() {
    return sent.stream().filter(m -> m.getValue("method") == null).toList();
  }

  /** @return how often the client called {@link #close()} */
  public int closeCalls() {
    return closeCalls;
  }

  /** @return whether the transport is closed (by the client or the server) */
  public boolean closed() {
    return closed;
  }

  /** @return calls made off the bound context, and other misuse */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  private void checkContext(String method) {
    if (Vertx.currentContext() != context) {
      violations.add(method + "() called off the transport's context on " + Thread.currentThread().getName());
    }
  }

  private Future<Void> onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
      return Future.succeededFuture();
    }
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> {
      try {
        action.run();
        done.complete();
      } catch (Throwable t) {
        done.fail(t);
      }
    });
    return done.future();
  }
}
