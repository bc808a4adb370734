package io.agentbus.mcp.impl;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ProgressUpdate;
import io.agentbus.mcp.ServerRequestHandler;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.agentbus.mcp.transport.McpTransport;
import io.agentbus.mcp.transport.RelatedMessageHandler;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The MCP client state machine for one connection. All state is confined to
 * {@link #context}; public methods hop onto it first.
 *
 * <p>Inbound messages are held to JSON-RPC 2.0: responses by {@link Responses}; a request
 * or notification without {@code "jsonrpc": "2.0"} is dropped. Every warning a server can
 * cause at will, and its log notifications, are rate-limited ({@link LogRateLimit}).
 */
public final class McpClientImpl implements McpClient {

  private static final Logger LOG = LoggerFactory.getLogger(McpClientImpl.class);
  private static final String CLIENT_NAME = "agentbus";
  private static final String CLIENT_VERSION = "0.1.0";

  private final Vertx vertx;
  private final ContextInternal context;
  private final McpServerOptions options;
  private final McpTransport transport;
  private final String name;
  private final PendingRequests pending;
  private final ToolLister lister;
  private final ServerLog serverLog;
  private final Responses responses;
  private final LogRateLimit malformed;
  private final LogRateLimit refused;
  private Status status = Status.NEW;
  private long nextId;
  private JsonObject initializeResult;
  private String protocolVersion;
  private Handler<List<JsonObject>> toolsChangedHandler;
  private Handler<JsonObject> logMessageHandler;
  private Handler<Throwable> closeHandler;
  private ServerRequestRelay serverRequests;
  private Future<Void> closing;
  /** Completes when connect() does; failed at once by close() or a lost connection. */
  private Promise<JsonObject> connecting;

  public McpClientImpl(Vertx vertx, Context context, McpServerOptions options, McpTransport transport) {
    this.vertx = vertx;
    this.context = (ContextInternal) context;
    this.options = options;
    this.transport = transport;
    this.name = options.getName();
    this.pending = new PendingRequests(vertx, context, name, options.getMaxPendingRequests(), this::onTimeout);
    this.lister = new ToolLister(name, this::requestOnContext, this::onToolsRelisted);
    LogRateLimit.Scheduler timers = (delayMs, task) -> vertx.setTimer(delayMs, t -> task.run());
    this.serverLog = new ServerLog(name, timers);
    this.responses = new Responses(name, pending, timers);
    this.malformed = LogRateLimit.warnings(LOG, name, "messages that are not JSON-RPC 2.0", timers);
    this.refused = LogRateLimit.lines(LOG, Level.INFO, name, "refused server requests", LogRateLimit.DEFAULT_MAX_LINES, timers);
  }

  private <T> Future<T> onContext(Supplier<Future<T>> action) {
    if (context.inThread()) {
      return action.get();
    }
    Promise<T> p = context.promise();
    context.runOnContext(v -> action.get().onComplete(p));
    return p.future();
  }

  @Override
  public Future<JsonObject> connect() {
    return onContext(this::doConnect);
  }

  private Future<JsonObject> doConnect() {
    if (status != Status.NEW) {
      return Future.failedFuture(new IllegalStateException("connect() may only be called once (status " + status + ")"));
    }
    status = Status.CONNECTING;
    transport.closeHandler(this::onTransportClosed);
    Promise<JsonObject> ready = context.promise();
    connecting = ready;
    long timer = vertx.setTimer(options.getConnectTimeoutMs(), t -> ready.tryFail(new McpException(Kind.TIMEOUT,
      "server '" + name + "' was not ready within " + options.getConnectTimeoutMs() + " ms")));
    ready.future().onComplete(ar -> vertx.cancelTimer(timer));
    transport.start((RelatedMessageHandler) this::onMessage)
      .compose(v -> {
        if (status != Status.CONNECTING) {
          return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed while connecting"));
        }
        status = Status.INITIALIZING;
        return send("initialize", initializeParams(), options.getConnectTimeoutMs(), null);
      })
      .compose(this::acceptInitializeResult)
      .compose(v -> transport.handshakeCompleted(protocolVersion))
      .compose(v -> transport.send(JsonRpc.notification("notifications/initialized", null)))
      .compose(v -> {
        if (status != Status.INITIALIZING) {
          return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed during initialize"));
        }
        status = Status.READY;
        return hasTools() ? lister.list() : Future.succeededFuture(List.of());
      })
      .onComplete(ar -> {
        if (ar.succeeded()) {
          ready.tryComplete(initializeResult);
        } else {
          ready.tryFail(ar.cause());
        }
      });
    return ready.future().onFailure(err -> {
      if (status != Status.CLOSED && status != Status.CLOSING) {
        doClose(err);
      }
    }).onSuccess(init -> LOG.info("[{}] ready: {} {} (protocol {}), {} tools", name,
      serverInfo().getString("name"), serverInfo().getString("version"), protocolVersion, lister.tools().size()));
  }

  private JsonObject initializeParams() {
    return new JsonObject()
      .put("protocolVersion", SUPPORTED_PROTOCOL_VERSIONS.get(0))
      .put("capabilities", serverRequests == null ? new JsonObject() : serverRequests.capabilities())
      .put("clientInfo", new JsonObject().put("name", CLIENT_NAME).put("version", CLIENT_VERSION));
  }

  private Future<Void> acceptInitializeResult(JsonObject result) {
    Object version = result.getValue("protocolVersion");
    if (!(version instanceof String v) || !SUPPORTED_PROTOCOL_VERSIONS.contains(v)) {
      return Future.failedFuture(new McpException(Kind.UNSUPPORTED_VERSION, "server '" + name
        + "' answered initialize with protocol version " + version + "; Agentbus supports " + SUPPORTED_PROTOCOL_VERSIONS));
    }
    if (result.getValue("capabilities") != null && !(result.getValue("capabilities") instanceof JsonObject)) {
      return Future.failedFuture(new McpException(Kind.PROTOCOL, "server '" + name + "' sent capabilities that are not an object"));
    }
    initializeResult = result;
    protocolVersion = v;
    return Future.succeededFuture();
  }

  private JsonObject serverInfo() {
    Object info = initializeResult == null ? null : initializeResult.getValue("serverInfo");
    return info instanceof JsonObject o ? o : new JsonObject();
  }

  private boolean hasTools() {
    Object caps = initializeResult.getValue("capabilities");
    return caps instanceof JsonObject c && c.getValue("tools") != null;
  }

  @Override
  public Future<List<JsonObject>> listTools() {
    return onContext(() -> {
      if (status != Status.READY) {
        return notReady();
      }
      return hasTools() ? lister.list() : Future.succeededFuture(List.of());
    });
  }

  @Override
  public Future<JsonObject> callTool(String toolName, JsonObject arguments, CallOptions callOptions) {
    CallOptions o = callOptions == null ? new CallOptions() : callOptions;
    JsonObject params = new JsonObject().put("name", toolName).put("arguments", arguments == null ? new JsonObject() : arguments);
    long timeout = o.getTimeoutMs() != null ? o.getTimeoutMs() : options.getTimeoutMs();
    long maxTotal = o.getMaxTotalTimeoutMs() != null ? o.getMaxTotalTimeoutMs() : options.getMaxTotalTimeoutMs();
    return onContext(() -> {
      if (status != Status.READY) {
        return notReady();
      }
      Future<JsonObject> result = send("tools/call", params, timeout, maxTotal, o.isResetTimeoutOnProgress(), o.getProgressHandler());
      if (o.getCaller() != null) {
        pending.tag(JsonRpc.idKey(nextId), o.getCaller());
      }
      return result;
    });
  }

  @Override
  public Future<Void> ping() {
    return request("ping", null).mapEmpty();
  }

  @Override
  public Future<JsonObject> request(String method, JsonObject params) {
    return onContext(() -> requestOnContext(method, params));
  }

  private Future<JsonObject> requestOnContext(String method, JsonObject params) {
    if (status != Status.READY) {
      return notReady();
    }
    return send(method, params, options.getTimeoutMs(), null);
  }

  private <T> Future<T> notReady() {
    return Future.failedFuture(new McpException(Kind.NOT_CONNECTED, "server '" + name + "' is not ready (" + status + ")"));
  }

  private Future<JsonObject> send(String method, JsonObject params, long timeoutMs, Handler<ProgressUpdate> progress) {
    return send(method, params, timeoutMs, timeoutMs, true, progress);
  }

  private Future<JsonObject> send(String method, JsonObject params, long timeoutMs, long maxTotalMs,
                                  boolean resetOnProgress, Handler<ProgressUpdate> progress) {
    long id = ++nextId;
    String key = JsonRpc.idKey(id);
    // Every tools/call carries a progressToken (its request id, unique while it is pending), so
    // that a server's progress restarts the call's clock (up to maxTotalMs) whether or not the
    // caller asked to see the updates.
    boolean tracksProgress = progress != null || "tools/call".equals(method);
    if (tracksProgress) {
      JsonObject meta = params.getJsonObject("_meta", new JsonObject()).put("progressToken", id);
      params.put("_meta", meta);
    }
    Future<JsonObject> response = pending.add(id, key, method, timeoutMs, maxTotalMs, resetOnProgress && tracksProgress, progress);
    if (response.failed()) {
      return response;
    }
    transport.send(JsonRpc.request(id, method, params)).onFailure(err -> {
      PendingRequests.Entry e = pending.remove(key);
      if (e != null) {
        e.promise.fail(err);
      }
    });
    return response;
  }

  private void onTimeout(PendingRequests.Entry e) {
    LOG.warn("[{}] {} (id {}) timed out; cancelling", name, e.method, e.id);
    if (!"initialize".equals(e.method)) {
      transport.send(JsonRpc.notification("notifications/cancelled",
        new JsonObject().put("requestId", e.id).put("reason", "timeout")));
    }
  }

  private void onMessage(JsonObject msg, String relatedKey) {
    String versionProblem = JsonRpc.versionProblem(msg);
    if (JsonRpc.hasMethod(msg)) {
      if (versionProblem != null) {
        if (malformed.permit()) {
          LOG.warn("[{}] dropped a message that is not JSON-RPC 2.0 ({}): {}", name, Responses.shortText(msg.getString("method")),
            versionProblem);
        }
      } else if (msg.getValue("id") != null) {
        onServerRequest(msg, relatedKey);
      } else {
        onNotification(msg.getString("method"), msg.getValue("params") instanceof JsonObject p ? p : new JsonObject());
      }
    } else if (JsonRpc.isResponse(msg)) {
      responses.handle(msg, versionProblem);
    } else if (malformed.permit()) {
      LOG.warn("[{}] dropped a message that is neither request, notification nor response", name);
    }
  }

  private void onServerRequest(JsonObject msg, String relatedKey) {
    Object id = msg.getValue("id");
    String method = msg.getString("method");
    if ("ping".equals(method)) {
      transport.send(JsonRpc.result(id, new JsonObject()));
      return;
    }
    if (serverRequests != null && serverRequests.handles(method)) {
      serverRequests.handle(id, method, msg.getValue("params"), relatedKey);
      return;
    }
    if (refused.permit()) {
      LOG.info("[{}] refused server request {} (not supported by this client)", name, Responses.shortText(method));
    }
    transport.send(JsonRpc.error(id, JsonRpc.METHOD_NOT_FOUND, "Method not found: " + method));
  }

  private void onNotification(String method, JsonObject params) {
    switch (method) {
      case "notifications/tools/list_changed" -> {
        if (status == Status.READY || status == Status.INITIALIZING) {
          lister.changed(status == Status.READY);
        }
      }
      case "notifications/progress" -> {
        String key = JsonRpc.idKey(params.getValue("progressToken"));
        if (key != null && params.getValue("progress") instanceof Number progress) {
          Object total = params.getValue("total");
          pending.progress(key, new ProgressUpdate(progress.doubleValue(),
            total instanceof Number t ? t.doubleValue() : null,
            params.getValue("message") instanceof String m ? m : null));
        }
      }
      case "notifications/message" -> {
        if (logMessageHandler != null) {
          logMessageHandler.handle(params);
        } else {
          serverLog.log(params);
        }
      }
      default -> LOG.debug("[{}] ignored notification {}", name, method);
    }
  }

  private void onToolsRelisted(List<JsonObject> tools) {
    // during connect, connect() hands out the fresh list itself
    if (toolsChangedHandler != null && status == Status.READY && connected()) {
      toolsChangedHandler.handle(tools);
    }
  }

  private boolean connected() {
    return connecting != null && connecting.future().succeeded();
  }

  private void onTransportClosed(Throwable cause) {
    if (status == Status.CLOSED || status == Status.CLOSING) {
      return;
    }
    // A connection that connect() has not reported ready yet fails connect(), not closeHandler.
    boolean report = status == Status.READY && connected();
    status = Status.CLOSED;
    flushLogLimits();
    McpException closed = cause instanceof McpException m && m.kind() == Kind.CONNECTION_CLOSED ? m
      : new McpException(Kind.CONNECTION_CLOSED, "connection to server '" + name + "' lost: "
        + (cause == null ? "closed" : cause.getMessage()), cause);
    pending.failAll(closed);
    if (connecting != null) {
      connecting.tryFail(closed);
    }
    if (report && closeHandler != null) {
      closeHandler.handle(closed);
    }
  }

  @Override
  public Future<Void> close() {
    return onContext(() -> doClose(new McpException(Kind.CONNECTION_CLOSED, "connection to server '" + name + "' closed")));
  }

  private Future<Void> doClose(Throwable cause) {
    if (closing != null) {
      return closing;
    }
    status = Status.CLOSING;
    flushLogLimits();
    pending.failAll(cause);
    if (connecting != null) {
      connecting.tryFail(cause);
    }
    closing = transport.close().andThen(ar -> status = Status.CLOSED);
    return closing;
  }

  private void flushLogLimits() {
    responses.flush();
    malformed.flush();
    refused.flush();
    serverLog.flush();
  }

  @Override
  public McpClient toolsChangedHandler(Handler<List<JsonObject>> handler) {
    this.toolsChangedHandler = handler;
    return this;
  }

  @Override
  public McpClient logMessageHandler(Handler<JsonObject> handler) {
    this.logMessageHandler = handler;
    return this;
  }

  @Override
  public McpClient serverRequestHandler(ServerRequestHandler handler) {
    this.serverRequests = handler == null ? null
      : new ServerRequestRelay(name, handler, transport, pending, () -> status == Status.READY || status == Status.INITIALIZING);
    return this;
  }

  @Override
  public Future<Void> notify(String method, JsonObject params) {
    return onContext(() -> status != Status.READY ? notReady() : transport.send(JsonRpc.notification(method, params)));
  }

  @Override
  public McpClient closeHandler(Handler<Throwable> handler) {
    this.closeHandler = handler;
    return this;
  }

  @Override
  public Status status() {
    return status;
  }

  @Override
  public List<JsonObject> tools() {
    return lister.tools();
  }

  @Override
  public JsonObject initializeResult() {
    return initializeResult;
  }

  @Override
  public String protocolVersion() {
    return protocolVersion;
  }

  @Override
  public JsonObject describe() {
    return transport.describe();
  }

  /** @return how many requests wait for a response (tests check that none leak); on the context */
  int pendingRequests() {
    return pending.size();
  }
}
