package io.agentbus.mcp.transport.http;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.McpTransport;
import io.agentbus.sse.SseEvent;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The legacy HTTP+SSE transport (protocol 2024-11-05): a GET opens an SSE stream whose
 * first {@code endpoint} event names the URI to POST messages to (relative or absolute,
 * same origin only); every POST is answered 202 and the responses arrive as
 * {@code message} events on the stream. The stream ending means the session is over.
 * Confined to the client's context.
 */
public final class LegacySseTransport implements McpTransport {

  /** Where the transport is in its life. */
  enum Status {
    /** Created, not started. */
    NEW,
    /** The SSE stream is being opened; waiting for its {@code endpoint} event. */
    CONNECTING,
    /** The endpoint is known: messages can be POSTed. */
    OPEN,
    /** {@link #close()} was called. */
    CLOSING,
    /** Closed, or ended on its own (the stream ended). */
    CLOSED
  }

  private static final Logger LOG = LoggerFactory.getLogger(LegacySseTransport.class);

  private final Vertx vertx;
  private final ContextInternal context;
  private final McpServerOptions options;
  private final String name;
  private final HttpEndpoint endpoint;
  private final Promise<Void> closed;
  private final MessageWarnings warnings;
  private final LogRateLimit extraEndpoints;
  private Handler<JsonObject> messageHandler;
  private Handler<Throwable> closeHandler;
  private Promise<Void> started;
  private HttpClientRequest stream;
  private URI postUri;
  private Status status = Status.NEW;

  /** A transport for {@code options.getUrl()} (the SSE endpoint), bound to {@code context}. */
  public LegacySseTransport(Vertx vertx, Context context, McpServerOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.name = options.getName();
    this.context = (ContextInternal) context;
    this.closed = this.context.promise();
    this.endpoint = new HttpEndpoint(vertx, context, options);
    LogRateLimit.Scheduler timers = (delayMs, task) -> vertx.setTimer(delayMs, id -> task.run());
    this.warnings = new MessageWarnings(name, timers);
    this.extraEndpoints = LogRateLimit.warnings(LOG, name, "endpoint events after the first", timers);
  }

  @Override
  public Future<Void> start(Handler<JsonObject> handler) {
    this.messageHandler = Objects.requireNonNull(handler, "'handler' cannot be null");
    status = Status.CONNECTING;
    started = context.promise();
    long timer = vertx.setTimer(options.getConnectTimeoutMs(), t -> started.tryFail(new McpException(Kind.TIMEOUT,
      "server '" + name + "': no endpoint event from " + endpoint.redacted() + " within " + options.getConnectTimeoutMs() + " ms")));
    MultiMap h = MultiMap.caseInsensitiveMultiMap().set("Accept", "text/event-stream");
    endpoint.send(HttpMethod.GET, endpoint.uri(), h, null, 0, req -> stream = req).onComplete(ar -> {
      if (ar.failed()) {
        started.tryFail(ar.cause());
      } else {
        onStream(ar.result());
      }
    });
    return started.future().andThen(ar -> vertx.cancelTimer(timer)).onFailure(err -> close());
  }

  private void onStream(HttpClientResponse resp) {
    if (resp.statusCode() / 100 != 2 || !MessageReader.isEventStream(resp)) {
      boolean wrongType = resp.statusCode() / 100 == 2;
      endpoint.statusError(HttpMethod.GET, endpoint.uri(), resp).onComplete(e -> started.tryFail(
        new McpException(Kind.TRANSPORT, e.result().getMessage() + (wrongType ? " (expected an SSE stream)" : ""), e.result())));
      return;
    }
    MessageReader reader = MessageReader.read(name, warnings, resp, options.getMaxMessageBytes(), null, this::deliver,
      this::onEvent);
    reader.done().onComplete(ar -> {
      if (isClosed()) {
        return;
      }
      String why = "server '" + name + "': the SSE stream " + (ar.succeeded() ? "ended" : "broke (" + ar.cause().getMessage() + ")");
      if (started.tryFail(new McpException(Kind.TRANSPORT, why + " before the endpoint event"))) {
        return;
      }
      status = Status.CLOSED;
      flushWarnings();
      LOG.warn("[{}] {}", name, why);
      endpoint.close().onComplete(v -> closed.tryComplete());
      if (closeHandler != null) {
        closeHandler.handle(new McpException(Kind.CONNECTION_CLOSED, why));
      }
    });
  }

  private void onEvent(SseEvent event) {
    if (!"endpoint".equals(event.event())) {
      LOG.debug("[{}] ignored SSE event of type {}", name, event.event());
      return;
    }
    if (postUri != null) {
      if (extraEndpoints.permit()) {
        LOG.warn("[{}] ignored a second endpoint event", name);
      }
      return;
    }
    try {
      postUri = endpoint.resolveSameOrigin(event.data());
      if (status == Status.CONNECTING) {
        status = Status.OPEN;
      }
      LOG.info("[{}] legacy SSE endpoint: {}", name, HttpEndpoint.redact(postUri));
      started.tryComplete();
    } catch (McpException e) {
      started.tryFail(e);
    }
  }

  private boolean isClosed() {
    return status == Status.CLOSING || status == Status.CLOSED;
  }

  private void deliver(JsonObject msg) {
    if (!isClosed()) {
      messageHandler.handle(msg);
    }
  }

  @Override
  public Future<Void> send(JsonObject message) {
    if (status != Status.OPEN) {
      return Future.failedFuture(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' is not connected"));
    }
    MultiMap h = MultiMap.caseInsensitiveMultiMap().set("Content-Type", "application/json");
    return endpoint.send(HttpMethod.POST, postUri, h, message.toBuffer(), options.getTimeoutMs(), null)
      .compose(resp -> {
        if (resp.statusCode() / 100 == 2) {
          resp.handler(b -> { });
          return Future.<Void>succeededFuture();
        }
        return endpoint.statusError(HttpMethod.POST, postUri, resp)
          .compose(e -> Future.<Void>failedFuture(new McpException(Kind.TRANSPORT, e.getMessage(), e)));
      });
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
    if (started != null && !started.future().isComplete()) {
      started.tryFail(new McpException(Kind.CONNECTION_CLOSED, "server '" + name + "' closed while starting"));
    }
    if (stream != null) {
      stream.reset();
    }
    endpoint.close().onComplete(ar -> {
      status = Status.CLOSED;
      closed.tryComplete();
    });
    return closed.future();
  }

  private void flushWarnings() {
    warnings.flush();
    extraEndpoints.flush();
  }

  @Override
  public JsonObject describe() {
    return new JsonObject().put("transport", "sse").put("url", endpoint.redacted()).put("connected", postUri != null)
      .put("status", status.name().toLowerCase(java.util.Locale.ROOT));
  }
}
