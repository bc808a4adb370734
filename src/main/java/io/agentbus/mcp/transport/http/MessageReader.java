package io.agentbus.mcp.transport.http;

import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseEventTooLargeException;
import io.agentbus.sse.SseParser;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Reads the JSON-RPC messages out of one 2xx response body, either a single JSON value
 * ({@code application/json}) or a {@code text/event-stream}, and hands each message to a
 * handler as soon as it is complete. Empty-data events (MCP priming events) only move the
 * last event id. {@link #done()} completes when the body ends and fails when the connection
 * breaks first. What is not a message is skipped with a warning, rate-limited by the
 * transport's {@link MessageWarnings}. Runs on the response's context.
 */
final class MessageReader {

  private final String name;
  private final MessageWarnings warnings;
  private final Handler<JsonObject> onMessage;
  private final Handler<SseEvent> onOtherEvent;
  private final Promise<Void> done = Promise.promise();
  private SseParser parser;
  private Long retry;
  private Throwable oversized;

  private MessageReader(String name, MessageWarnings warnings, Handler<JsonObject> onMessage,
                        Handler<SseEvent> onOtherEvent) {
    this.name = name;
    this.warnings = warnings;
    this.onMessage = onMessage;
    this.onOtherEvent = onOtherEvent;
  }

  /** @return whether the response carries an event stream */
  static boolean isEventStream(HttpClientResponse resp) {
    String type = resp.getHeader("Content-Type");
    return type != null && type.toLowerCase(java.util.Locale.ROOT).startsWith("text/event-stream");
  }

  /**
   * Starts reading {@code resp}.
   *
   * @param warnings the transport's rate limits for the warnings about what is not a message
   * @param lastEventId the id to resume from (seeds the parser), or {@code null}
   * @param onOtherEvent receives non-{@code message} SSE events (legacy {@code endpoint}); may be null
   */
  static MessageReader read(String name, MessageWarnings warnings, HttpClientResponse resp, int maxBytes,
                            String lastEventId, Handler<JsonObject> onMessage, Handler<SseEvent> onOtherEvent) {
    MessageReader r = new MessageReader(name, warnings, onMessage, onOtherEvent);
    if (isEventStream(resp)) {
      r.readEvents(resp, maxBytes, lastEventId);
    } else {
      r.readJson(resp, maxBytes);
    }
    return r;
  }

  private void readEvents(HttpClientResponse resp, int maxBytes, String lastEventId) {
    parser = SseParser.create(maxBytes).lastEventId(lastEventId);
    parser.handler(this::onEvent);
    parser.exceptionHandler(err -> {
      if (err instanceof SseEventTooLargeException) {
        oversized = err;
        if (warnings.oversized.permit()) {
          MessageWarnings.LOG.warn("[{}] skipped an SSE event over the {}-byte limit", name, maxBytes);
        }
      } else if (warnings.badEvent.permit()) {
        MessageWarnings.LOG.warn("[{}] failed to handle an SSE event: {}", name, err.toString());
      }
    });
    resp.handler(parser);
    resp.exceptionHandler(done::tryFail);
    resp.endHandler(v -> {
      parser.end();
      done.tryComplete();
    });
  }

  private void onEvent(SseEvent event) {
    if (event.retry() != null) {
      retry = event.retry();
    }
    if (!SseEvent.DEFAULT_EVENT.equals(event.event())) {
      if (onOtherEvent != null) {
        onOtherEvent.handle(event);
      } else {
        MessageWarnings.LOG.debug("[{}] ignored SSE event of type {}", name, event.event());
      }
      return;
    }
    if (event.isEmpty()) {
      return;
    }
    deliver(event.data());
  }

  private void readJson(HttpClientResponse resp, int maxBytes) {
    HttpEndpoint.readBody(resp, maxBytes).onComplete(ar -> {
      if (ar.failed()) {
        oversized = ar.cause() instanceof io.agentbus.mcp.McpException ? ar.cause() : null;
        done.tryFail(ar.cause());
        return;
      }
      Buffer body = ar.result();
      if (body.length() > 0 && !body.toString().isBlank()) {
        deliver(body.toString());
      }
      done.tryComplete();
    });
  }

  private void deliver(String text) {
    Object value;
    try {
      value = Json.decodeValue(text);
    } catch (DecodeException e) {
      if (warnings.notJson.permit()) {
        MessageWarnings.LOG.warn("[{}] skipped a message that is not JSON ({} chars)", name, text.length());
      }
      return;
    }
    if (value instanceof JsonObject msg) {
      onMessage.handle(msg);
    } else if (value instanceof JsonArray batch) {
      for (Object item : batch) {
        if (item instanceof JsonObject msg) {
          onMessage.handle(msg);
        } else {
          notObject();
        }
      }
    } else {
      notObject();
    }
  }

  private void notObject() {
    if (warnings.notObject.permit()) {
      MessageWarnings.LOG.warn("[{}] skipped a message that is not a JSON-RPC object", name);
    }
  }

  /** @return completes when the body ended normally; fails when the connection broke */
  Future<Void> done() {
    return done.future();
  }

  /** @return the last SSE event id seen (for {@code Last-Event-ID}), or {@code null} */
  String lastEventId() {
    return parser == null ? null : parser.lastEventId();
  }

  /** @return the last {@code retry:} value in ms, or {@code null} */
  Long retry() {
    return retry;
  }

  /** @return the size-limit failure if a message was skipped as too large, else {@code null} */
  Throwable oversized() {
    return oversized;
  }
}
