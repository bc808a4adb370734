package io.agentbus.mcp.transport.http;

import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP Streamable HTTP (2025-03-26 and later): every client message is a POST to the one
 * endpoint, answered with JSON, an SSE stream or 202; a GET stream carries what the server
 * sends on its own. The transport keeps the {@code Mcp-Session-Id}, sends
 * {@code MCP-Protocol-Version} after initialize, and when the server says the session is
 * gone it re-initializes by itself (replaying the client's {@code initialize} under an id
 * of its own, which never reaches the client) and retries the failed message once. Closing
 * sends {@code DELETE}. Confined to the client's context.
 *
 * <p>For a request, {@link #send} completes when its exchange is over and fails with a
 * {@link McpException} when the answer cannot arrive (connection refused, HTTP error,
 * broken stream), so the pending call fails at once rather than at its timeout.
 */
public final class StreamableHttpTransport implements McpTransport {

  static final long DEFAULT_RECONNECT_MS = 1_000;
  static final String SESSION_HEADER = "Mcp-Session-Id";
  static final String VERSION_HEADER = "MCP-Protocol-Version";
  /** Consecutive connect failures after which the server counts as unreachable for good. */
  static final int MAX_CONNECT_FAILURES = 3;
  private static final Logger LOG = LoggerFactory.getLogger(StreamableHttpTransport.class);

  private final Vertx vertx;
  private final ContextInternal context;
  private final McpServerOptions options;
  private final String name;
  private final HttpEndpoint endpoint;
  private final Map<String, PostExchange> inFlight = new HashMap<>();
  private final Promise<Void> closed;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private JsonObject initializeParams;
  private boolean initializedSent;
  private String sessionId;
  private String protocolVersion;
  private StandaloneStream standalone;
  private Future<Void> renewing;
  private int renewals;
  private int connectFailures;
  private boolean closing;
  private boolean ended;

  /** A transport for {@code options.getUrl()}, bound to {@code context}. */
  public StreamableHttpTransport(Vertx vertx, Context context, McpServerOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.name = options.getName();
    this.context = (ContextInternal) context;
    this.closed = this.context.promise();
    this.endpoint = new HttpEndpoint(vertx, context, options);
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    this.messageHandler = Objects.requireNonNull(handler, "'handler' cannot be null");
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> send(JsonObject message) {
    if (closing || ended) {
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is closed"));
    }
    String method = message.getValue("method") instanceof String m ? m : null;
    if ("initialize".equals(method) && message.getValue("params") instanceof JsonObject p) {
      initializeParams = p.copy();
    } else if ("notifications/initialized".equals(method)) {
      initializedSent = true;
    } else if ("notifications/cancelled".equals(method) && message.getValue("params") instanceof JsonObject p) {
      PostExchange cancelled = inFlight.remove(JsonRpc.idKey(p.getValue("requestId")));
      if (cancelled != null) {
        cancelled.abort(new McpException(Kind.TIMEOUT, "server '" + name + "': request cancelled"));
      }
    }
    return post(message, false);
  }

  private Future<Void> post(JsonObject message, boolean retried) {
    if (renewing != null) {
      // a new session is being set up: send with it, not without any
      return renewing.compose(v -> post(message, retried));
    }
    String sessionUsed = sessionId;
    PostExchange ex = new PostExchange(this, message, this::deliver);
    if (ex.key() != null) {
      inFlight.put(ex.key(), ex);
    }
    return ex.start().result()
      .andThen(ar -> {
        if (ex.key() != null) {
          inFlight.remove(ex.key(), ex);
        }
      })
      .recover(err -> {
        if (!retried && !closing && !ended && sessionUsed != null && err instanceof HttpStatusException hse
          && hse.sessionGone() && !"initialize".equals(message.getString("method"))) {
          return sessionLost(sessionUsed).compose(v -> post(message, true));
        }
        return Future.failedFuture(toMcp(err));
      });
  }

  private McpException toMcp(Throwable err) {
    if (err instanceof McpException e) {
      return e;
    }
    return new McpException(Kind.TRANSPORT, err.getMessage(), err);
  }

  /** Hands a server message to the client. */
  void deliver(JsonObject msg) {
    if (!ended && !closing) {
      messageHandler.handle(msg);
    }
  }

  @Override
  public Future<Void> handshakeCompleted(String version) {
    this.protocolVersion = version;
    return openStandalone();
  }

  private Future<Void> openStandalone() {
    if (standalone != null) {
      standalone.close();
    }
    standalone = new StandaloneStream(this, sessionId);
    return standalone.open().recover(err -> Future.failedFuture(toMcp(err)));
  }

  /**
   * The server said session {@code lost} is gone: re-initialize once for everybody who saw
   * it. Completes when a new session is ready; a failure ends the transport.
   */
  Future<Void> sessionLost(String lost) {
    if (!Objects.equals(lost, sessionId)) {
      return Future.succeededFuture();
    }
    if (renewing == null) {
      renewing = renew().andThen(ar -> {
        renewing = null;
        if (ar.failed()) {
          end(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "': the session expired and could not be renewed: "
            + ar.cause().getMessage(), ar.cause()));
        }
      });
    }
    return renewing;
  }

  private Future<Void> renew() {
    if (initializeParams == null) {
      return Future.failedFuture(new McpException(Kind.PROTOCOL, "no initialize request to replay"));
    }
    LOG.info("[{}] session expired; re-initializing", name);
    sessionId = null;
    if (standalone != null) {
      standalone.close();
    }
    String id = "agentbus-reinit-" + (++renewals);
    String key = JsonRpc.idKey(id);
    Promise<JsonObject> answer = Promise.promise();
    PostExchange init = new PostExchange(this, JsonRpc.request(id, "initialize", initializeParams.copy()), msg -> {
      if (JsonRpc.isResponse(msg) && key.equals(JsonRpc.idKey(msg.getValue("id")))) {
        if (msg.getValue("result") instanceof JsonObject r) {
          answer.tryComplete(r);
        } else {
          answer.tryFail(new McpException(Kind.PROTOCOL, "re-initialize was refused: " + msg.getValue("error")));
        }
      } else {
        deliver(msg);
      }
    });
    return init.start().result()
      .compose(v -> answer.future())
      .compose(r -> protocolVersion == null ? Future.succeededFuture() : openStandalone())
      .compose(v -> initializedSent ? new PostExchange(this, JsonRpc.notification("notifications/initialized", null),
        this::deliver).start().result() : Future.succeededFuture())
      .onSuccess(v -> LOG.info("[{}] new session established", name));
  }

  /** Records the session id from an initialize response. */
  void captureSession(HttpClientResponse resp) {
    String id = resp.getHeader(SESSION_HEADER);
    if (id == null) {
      return;
    }
    if (!id.chars().allMatch(c -> c >= 0x21 && c <= 0x7E)) {
      LOG.warn("[{}] ignored a session id with invalid characters", name);
      return;
    }
    sessionId = id;
  }

  /** Headers for a POST: content negotiation, session and (after initialize) protocol version. */
  MultiMap postHeaders(boolean initialize) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap()
      .set("Accept", "application/json, text/event-stream")
      .set("Content-Type", "application/json");
    if (!initialize) {
      sessionHeaders(h);
    }
    return h;
  }

  /** Headers for a GET stream, resuming after {@code lastEventId} when not {@code null}. */
  MultiMap streamHeaders(String lastEventId) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().set("Accept", "text/event-stream");
    sessionHeaders(h);
    if (lastEventId != null) {
      h.set("Last-Event-ID", lastEventId);
    }
    return h;
  }

  private void sessionHeaders(MultiMap h) {
    if (sessionId != null) {
      h.set(SESSION_HEADER, sessionId);
    }
    if (protocolVersion != null) {
      h.set(VERSION_HEADER, protocolVersion);
    }
  }

  /** Any HTTP answer proves the server is reachable. */
  void reachable() {
    connectFailures = 0;
  }

  /**
   * Counts a failure to connect; after {@link #MAX_CONNECT_FAILURES} in a row the server is
   * unreachable for good and the transport ends.
   *
   * @return whether the transport ended
   */
  boolean connectFailure(Throwable err) {
    if (!HttpEndpoint.isConnectFailure(err) || closing || ended) {
      return ended;
    }
    if (++connectFailures >= MAX_CONNECT_FAILURES) {
      end(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is unreachable at " + endpoint.redacted()
        + " (" + connectFailures + " failed connection attempts): " + err.getMessage(), err));
    }
    return ended;
  }

  /** The transport ended on its own: stop everything and tell the client once. */
  private void end(Throwable cause) {
    if (ended || closing) {
      return;
    }
    ended = true;
    LOG.warn("[{}] {}", name, cause.getMessage());
    // tell the client first, so that it is no longer READY when the aborted calls fail
    if (closeHandler != null) {
      closeHandler.handle(cause);
    }
    abortAll(cause);
    endpoint.close().onComplete(ar -> closed.tryComplete());
  }

  private void abortAll(Throwable cause) {
    if (standalone != null) {
      standalone.close();
    }
    for (PostExchange ex : new ArrayList<>(inFlight.values())) {
      ex.abort(cause);
    }
    inFlight.clear();
  }

  @Override
  public McpTransport closeHandler(Handler<Throwable> handler) {
    this.closeHandler = handler;
    return this;
  }

  @Override
  public Future<Void> close() {
    if (closing || ended) {
      return closed.future();
    }
    closing = true;
    abortAll(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed"));
    Future<Void> delete = sessionId == null ? Future.succeededFuture() : deleteSession();
    delete.eventually(endpoint::close).onComplete(ar -> closed.tryComplete());
    return closed.future();
  }

  private Future<Void> deleteSession() {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    sessionHeaders(h);
    long idle = Math.min(options.getTimeoutMs(), 5_000);
    return endpoint.send(HttpMethod.DELETE, endpoint.uri(), h, null, idle, null)
      .compose(resp -> {
        resp.handler(b -> { });
        LOG.debug("[{}] DELETE session answered HTTP {}", name, resp.statusCode());
        return Future.<Void>succeededFuture();
      })
      .recover(err -> {
        LOG.debug("[{}] DELETE session failed: {}", name, err.getMessage());
        return Future.succeededFuture();
      });
  }

  @Override
  public JsonObject describe() {
    JsonObject d = new JsonObject().put("transport", "http").put("url", endpoint.redacted())
      .put("session", sessionId != null);
    if (protocolVersion != null) {
      d.put("protocolVersion", protocolVersion);
    }
    if (standalone != null) {
      d.put("getStream", !standalone.none());
    }
    return d;
  }

  /** @return the current session id (tests only; never log it) */
  String sessionId() {
    return sessionId;
  }

  Vertx vertx() {
    return vertx;
  }

  McpServerOptions options() {
    return options;
  }

  String name() {
    return name;
  }

  HttpEndpoint endpoint() {
    return endpoint;
  }
}
