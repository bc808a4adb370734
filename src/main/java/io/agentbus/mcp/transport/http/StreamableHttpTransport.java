package io.agentbus.mcp.transport.http;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.OAuthSession;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.agentbus.mcp.transport.McpTransport;
import io.agentbus.mcp.transport.RelatedMessageHandler;
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
 * <p>The GET stream is optional and never holds anything up: it is opened in the background
 * once {@code notifications/initialized} has been accepted (and again after a renewal), so
 * nothing but {@code initialize} and {@code initialized} is sent before the handshake is
 * done, and a server that sends the GET's response head only with its first event (the
 * Java SDK on Tomcat) cannot stall the handshake, a call, a renewal or shutdown.
 *
 * <p>For a request, {@link #send} completes when its exchange is over and fails with a
 * {@link McpException} when the answer cannot arrive (connection refused, HTTP error,
 * broken stream), so the pending call fails at once rather than at its timeout.
 */
public final class StreamableHttpTransport implements McpTransport {

  /** Where the transport is in its life. */
  enum Status {
    /** Created; nothing sent yet. */
    NEW,
    /** {@code initialize} was sent; {@code notifications/initialized} not yet. */
    INITIALIZING,
    /** {@code notifications/initialized} was sent: normal operation. */
    OPERATING,
    /** The session was lost and a new one is being set up; sends wait for it. */
    RENEWING,
    /** {@link #close()} was called; the session is being deleted. */
    CLOSING,
    /** Closed, or ended on its own (server unreachable, session not renewable). */
    CLOSED
  }

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
  private final MessageWarnings warnings;
  private final LogRateLimit badSessionIds;
  private final LogRateLimit streamRefusals;
  private final OAuthSession auth;
  private Status status = Status.NEW;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private JsonObject initializeParams;
  private String sessionId;
  private String protocolVersion;
  private StandaloneStream standalone;
  private SessionRenewal renewal;
  private int renewals;
  private int connectFailures;

  /**
   * A transport for {@code options.getUrl()}, bound to {@code context}; with {@code oauth}
   * options it authorizes as the shared (default) identity.
   */
  public StreamableHttpTransport(Vertx vertx, Context context, McpServerOptions options) {
    this(vertx, context, options, options.getOauth() == null ? null : OAuthManager.of(vertx).session(options, null));
  }

  /**
   * A transport that authorizes with {@code auth} (one tenant's OAuth session for this
   * server), or without OAuth when it is {@code null}.
   */
  public StreamableHttpTransport(Vertx vertx, Context context, McpServerOptions options, OAuthSession auth) {
    this.auth = auth;
    if (auth != null && options.getHeaders().keySet().stream().anyMatch(h -> h.equalsIgnoreCase("Authorization"))) {
      LOG.warn("[{}] has both \"oauth\" and an Authorization header: the OAuth access token replaces the header once"
        + " there is one", options.getName());
    }
    this.vertx = vertx;
    this.options = options;
    this.name = options.getName();
    this.context = (ContextInternal) context;
    this.closed = this.context.promise();
    this.endpoint = new HttpEndpoint(vertx, context, options);
    LogRateLimit.Scheduler timers = (delayMs, task) -> vertx.setTimer(delayMs, id -> task.run());
    this.warnings = new MessageWarnings(name, timers);
    this.badSessionIds = LogRateLimit.warnings(LOG, name, "session ids with invalid characters", timers);
    this.streamRefusals = LogRateLimit.warnings(StandaloneStream.LOG, name, "GET stream refusals", timers);
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    this.messageHandler = Objects.requireNonNull(handler, "'handler' cannot be null");
    return Future.succeededFuture();
  }

  private boolean isClosed() {
    return status == Status.CLOSING || status == Status.CLOSED;
  }

  private McpException closedError() {
    return new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is closed");
  }

  @Override
  public Future<Void> send(JsonObject message) {
    if (isClosed()) {
      return Future.failedFuture(closedError());
    }
    String method = message.getValue("method") instanceof String m ? m : null;
    if ("notifications/cancelled".equals(method) && message.getValue("params") instanceof JsonObject p) {
      PostExchange cancelled = inFlight.remove(JsonRpc.idKey(p.getValue("requestId")));
      if (cancelled != null) {
        cancelled.abort(new McpException(Kind.TIMEOUT, "server '" + name + "': request cancelled"));
      }
    }
    if (status == Status.RENEWING) {
      // a new session is being set up: send with it, in order, not without any
      return renewal.future().compose(v -> send(message));
    }
    if ("initialize".equals(method) && message.getValue("params") instanceof JsonObject p) {
      initializeParams = p.copy();
      if (status == Status.NEW) {
        status = Status.INITIALIZING;
      }
    } else if ("notifications/initialized".equals(method)) {
      status = Status.OPERATING;
      return post(message, false).onSuccess(v -> openStandalone());
    }
    return post(message, false);
  }

  private Future<Void> post(JsonObject message, boolean retried) {
    return post(message, retried, 0, 0);
  }

  /**
   * @param unauthorized how many times this message was answered 401 and authorized again
   * @param stepUps how many times it was answered 403 {@code insufficient_scope} and re-authorized
   */
  private Future<Void> post(JsonObject message, boolean retried, int unauthorized, int stepUps) {
    if (status == Status.RENEWING) {
      return renewal.future().compose(v -> post(message, retried, unauthorized, stepUps));
    }
    if (isClosed()) {
      return Future.failedFuture(closedError());
    }
    if (auth != null) {
      return auth.prepare().compose(v -> exchange(message, retried, unauthorized, stepUps));
    }
    return exchange(message, retried, unauthorized, stepUps);
  }

  private Future<Void> exchange(JsonObject message, boolean retried, int unauthorized, int stepUps) {
    if (isClosed()) {
      return Future.failedFuture(closedError());
    }
    String authUsed = auth == null ? null : auth.authorization();
    String sessionUsed = sessionId;
    String related = JsonRpc.idKey(message.getValue("id"));
    PostExchange ex = new PostExchange(this, message, msg -> deliver(msg, related));
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
        if (!retried && !isClosed() && sessionUsed != null && err instanceof HttpStatusException hse
          && hse.sessionGone() && !"initialize".equals(message.getString("method"))) {
          return sessionLost(sessionUsed).compose(v -> post(message, true));
        }
        if (auth != null && !isClosed() && err instanceof HttpStatusException hse) {
          Future<Void> again = authorizeAndRetry(hse, message, retried, unauthorized, stepUps, authUsed);
          if (again != null) {
            return again;
          }
        }
        return Future.failedFuture(toMcp(err));
      });
  }

  /** On a 401 or a 403 {@code insufficient_scope}: authorize and resend, within the limits; else {@code null}. */
  private Future<Void> authorizeAndRetry(HttpStatusException hse, JsonObject message, boolean retried, int unauthorized,
                                         int stepUps, String authUsed) {
    if (hse.status() == 401) {
      if (unauthorized < OAuthSession.MAX_UNAUTHORIZED_RETRIES) {
        return auth.unauthorized(hse.challenges(), authUsed)
          .compose(v -> post(message, retried, unauthorized + 1, stepUps));
      }
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, "server '" + name + "' still answers 401"
        + " to a newly obtained access token; giving up"));
    }
    if (hse.status() == 403 && OAuthSession.isInsufficientScope(hse.challenges())) {
      if (stepUps < OAuthSession.MAX_STEP_UPS) {
        return auth.insufficientScope(hse.challenges(), authUsed)
          .compose(v -> post(message, retried, unauthorized, stepUps + 1));
      }
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, "server '" + name + "' still answers 403"
        + " insufficient_scope after " + stepUps + " re-authorizations with more scopes; giving up"));
    }
    return null;
  }

  private McpException toMcp(Throwable err) {
    if (err instanceof McpException e) {
      return e;
    }
    return new McpException(Kind.TRANSPORT, err.getMessage(), err);
  }

  /** Hands a server message to the client. */
  void deliver(JsonObject msg) {
    deliver(msg, null);
  }

  /** Hands a server message to the client, naming the request on whose POST stream it came. */
  private void deliver(JsonObject msg, String relatedKey) {
    if (!isClosed()) {
      RelatedMessageHandler.deliver(messageHandler, msg, relatedKey);
    }
  }

  /**
   * Records the negotiated version and returns at once: the GET stream is opened only after
   * {@code notifications/initialized}, in the background.
   */
  @Override
  public Future<Void> handshakeCompleted(String version) {
    this.protocolVersion = version;
    return Future.succeededFuture();
  }

  /** (Re)opens the GET stream for the current session, in the background. */
  private void openStandalone() {
    if (status != Status.OPERATING) {
      return;
    }
    closeStandalone();
    standalone = new StandaloneStream(this, sessionId);
    standalone.start();
  }

  private void closeStandalone() {
    if (standalone != null) {
      standalone.close();
      standalone = null;
    }
  }

  /**
   * The server said session {@code lost} is gone: re-initialize once for everybody who saw
   * it. Completes when a new session is ready; a failure (including no new session within
   * {@code connectTimeoutMs}) ends the transport and fails every send that waited for it.
   */
  Future<Void> sessionLost(String lost) {
    if (status == Status.RENEWING) {
      return renewal.future();
    }
    if (isClosed()) {
      return Future.failedFuture(closedError());
    }
    if (!Objects.equals(lost, sessionId)) {
      return Future.succeededFuture();
    }
    if (initializeParams == null) {
      McpException e = new McpException(Kind.CONNECTION_CLOSED, "server '" + name
        + "': the session expired before initialize was sent");
      end(e);
      return Future.failedFuture(e);
    }
    LOG.info("[{}] session expired; re-initializing", name);
    Status resumeTo = status == Status.OPERATING ? Status.OPERATING : Status.INITIALIZING;
    status = Status.RENEWING;
    sessionId = null;
    closeStandalone();
    SessionRenewal r = new SessionRenewal(this, "agentbus-reinit-" + (++renewals), initializeParams.copy(),
      resumeTo == Status.OPERATING, options.getConnectTimeoutMs());
    renewal = r;
    r.run().onComplete(ar -> {
      if (renewal != r) {
        return;
      }
      renewal = null;
      if (status != Status.RENEWING) {
        return;
      }
      if (ar.succeeded()) {
        status = resumeTo;
        LOG.info("[{}] new session established", name);
        openStandalone();
      } else {
        end(ar.cause());
      }
    });
    // waiting sends see the renewal end only after the transport took its consequences
    return r.future();
  }

  /** Records the session id from an initialize response. */
  void captureSession(HttpClientResponse resp) {
    String id = resp.getHeader(SESSION_HEADER);
    if (id == null) {
      return;
    }
    if (!id.chars().allMatch(c -> c >= 0x21 && c <= 0x7E)) {
      if (badSessionIds.permit()) {
        LOG.warn("[{}] ignored a session id with invalid characters", name);
      }
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
    authHeader(h);
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

  /** The OAuth access token, if any: sent only to this endpoint's origin (HttpEndpoint refuses others). */
  private void authHeader(MultiMap h) {
    String a = auth == null ? null : auth.authorization();
    if (a != null) {
      h.set("Authorization", a);
    }
  }

  private void sessionHeaders(MultiMap h) {
    authHeader(h);
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
    if (!HttpEndpoint.isConnectFailure(err) || isClosed()) {
      return status == Status.CLOSED;
    }
    if (++connectFailures >= MAX_CONNECT_FAILURES) {
      end(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is unreachable at " + endpoint.redacted()
        + " (" + connectFailures + " failed connection attempts): " + err.getMessage(), err));
    }
    return status == Status.CLOSED;
  }

  /** The transport ended on its own: stop everything and tell the client once. */
  private void end(Throwable cause) {
    if (isClosed()) {
      return;
    }
    status = Status.CLOSED;
    flushWarnings();
    LOG.warn("[{}] {}", name, cause.getMessage());
    // tell the client first, so that it is no longer READY when the aborted calls fail
    if (closeHandler != null) {
      closeHandler.handle(cause);
    }
    abortAll(cause);
    endpoint.close().onComplete(ar -> closed.tryComplete());
  }

  private void abortAll(Throwable cause) {
    closeStandalone();
    if (renewal != null) {
      SessionRenewal r = renewal;
      renewal = null;
      r.abort(cause);
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
    if (isClosed()) {
      return closed.future();
    }
    status = Status.CLOSING;
    flushWarnings();
    abortAll(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed"));
    Future<Void> delete = sessionId == null ? Future.succeededFuture() : deleteSession();
    delete.eventually(endpoint::close).onComplete(ar -> {
      status = Status.CLOSED;
      closed.tryComplete();
    });
    return closed.future();
  }

  private void flushWarnings() {
    warnings.flush();
    badSessionIds.flush();
    streamRefusals.flush();
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
      .put("session", sessionId != null).put("status", status.name().toLowerCase(java.util.Locale.ROOT));
    if (protocolVersion != null) {
      d.put("protocolVersion", protocolVersion);
    }
    if (standalone != null) {
      StandaloneStream.Status st = standalone.status();
      d.put("getStream", st != StandaloneStream.Status.UNSUPPORTED && st != StandaloneStream.Status.CLOSED)
        .put("getStreamStatus", st.name().toLowerCase(java.util.Locale.ROOT));
    }
    return d;
  }

  /** @return where the transport is in its life (tests) */
  Status status() {
    return status;
  }

  /** @return the GET stream of the current session, or {@code null} (tests) */
  StandaloneStream standalone() {
    return standalone;
  }

  /** @return the current session id (tests only; never log it) */
  String sessionId() {
    return sessionId;
  }

  ContextInternal context() {
    return context;
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

  /** @return the rate limits of the warnings about what the server sends that is not a message */
  MessageWarnings warnings() {
    return warnings;
  }

  /** @return the rate limit of the warnings about a refused GET stream */
  LogRateLimit streamRefusals() {
    return streamRefusals;
  }
}
