package io.agentbus.mcp.transport.http;

import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.OAuthSession;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * For a plain {@code url}: tries Streamable HTTP, and when the {@code initialize} POST is
 * answered 400, 404 or 405 falls back to the legacy HTTP+SSE transport, as the MCP spec's
 * backwards-compatibility section describes. The verdict is remembered per URL for the
 * life of the JVM, so reconnects go straight to the right transport.
 */
public final class AutoHttpTransport implements McpTransport {

  /** Where the choice of transport stands. */
  enum Status {
    /** Not started. */
    NEW,
    /** Started without a verdict: the first {@code initialize} decides. */
    PROBING,
    /** Using the remembered or just found transport. */
    DECIDED,
    /** Closed. */
    CLOSED
  }

  private static final Logger LOG = LoggerFactory.getLogger(AutoHttpTransport.class);
  private static final Map<String, McpServerOptions.Transport> VERDICTS = new ConcurrentHashMap<>();

  private final Vertx vertx;
  private final Context context;
  private final McpServerOptions options;
  private final OAuthSession auth;
  private McpTransport delegate;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private Status status = Status.NEW;

  /** A transport for {@code options.getUrl()}, bound to {@code context}, with the shared OAuth identity. */
  public AutoHttpTransport(Vertx vertx, Context context, McpServerOptions options) {
    this(vertx, context, options, options.getOauth() == null ? null : OAuthManager.of(vertx).session(options, null));
  }

  /**
   * A transport for {@code options.getUrl()}, bound to {@code context}, whose Streamable HTTP
   * requests authorize with {@code auth} (one tenant's OAuth session), or without OAuth when
   * it is {@code null}.
   */
  public AutoHttpTransport(Vertx vertx, Context context, McpServerOptions options, OAuthSession auth) {
    this.vertx = vertx;
    this.context = context;
    this.options = options;
    this.auth = auth;
  }

  /** @return the remembered transport for {@code url}, or {@code null} before a first success */
  public static McpServerOptions.Transport verdict(String url) {
    return VERDICTS.get(url);
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    this.messageHandler = handler;
    McpServerOptions.Transport known = VERDICTS.get(options.getUrl());
    status = known != null ? Status.DECIDED : Status.PROBING;
    delegate = known == McpServerOptions.Transport.SSE ? new LegacySseTransport(vertx, context, options)
      : new StreamableHttpTransport(vertx, context, options, auth);
    delegate.closeHandler(this::onClosed);
    return delegate.start(handler);
  }

  @Override
  public Future<Void> send(JsonObject message) {
    if (status != Status.PROBING || !"initialize".equals(message.getValue("method"))) {
      return delegate.send(message);
    }
    return delegate.send(message)
      .onSuccess(v -> decide(McpServerOptions.Transport.HTTP))
      .recover(err -> {
        Integer status = fallbackStatus(err);
        if (status == null) {
          return Future.failedFuture(err);
        }
        LOG.info("[{}] Streamable HTTP initialize answered HTTP {}; trying legacy HTTP+SSE", options.getName(), status);
        McpTransport old = delegate;
        delegate = new LegacySseTransport(vertx, context, options);
        delegate.closeHandler(this::onClosed);
        return old.close()
          .compose(v -> delegate.start(messageHandler))
          .compose(v -> delegate.send(message))
          .onSuccess(v -> decide(McpServerOptions.Transport.SSE))
          .recover(legacyErr -> Future.failedFuture(new McpException(Kind.TRANSPORT, "server '" + options.getName()
            + "': neither transport works: Streamable HTTP initialize answered HTTP " + status
            + "; legacy HTTP+SSE: " + legacyErr.getMessage(), legacyErr)));
      });
  }

  private void decide(McpServerOptions.Transport verdict) {
    if (status == Status.PROBING) {
      status = Status.DECIDED;
    }
    VERDICTS.put(options.getUrl(), verdict);
  }

  private static Integer fallbackStatus(Throwable err) {
    for (Throwable t = err; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof HttpStatusException hse) {
        int s = hse.status();
        return s == 400 || s == 404 || s == 405 ? s : null;
      }
    }
    return null;
  }

  private void onClosed(Throwable cause) {
    if (closeHandler != null) {
      closeHandler.handle(cause);
    }
  }

  @Override
  public Future<Void> handshakeCompleted(String protocolVersion) {
    return delegate.handshakeCompleted(protocolVersion);
  }

  @Override
  public McpTransport closeHandler(Handler<Throwable> handler) {
    this.closeHandler = handler;
    return this;
  }

  @Override
  public Future<Void> close() {
    status = Status.CLOSED;
    return delegate == null ? Future.succeededFuture() : delegate.close();
  }

  @Override
  public JsonObject describe() {
    JsonObject d = delegate == null ? new JsonObject() : delegate.describe();
    return d.put("auto", true);
  }
}
