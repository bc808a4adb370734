package io.agentbus.mcp.transport.http;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.util.Objects;

/**
 * One client message POSTed to a Streamable HTTP endpoint, from the request to the end of
 * its answer. For a request the answer may be plain JSON or an SSE stream; when that stream
 * breaks after carrying event ids, it is resumed with a GET and {@code Last-Event-ID} after
 * the server's {@code retry} delay. {@link #result()} completes once the exchange is over
 * (the response was delivered, or the message was accepted) and fails with the reason
 * otherwise. Confined to the transport's context.
 */
final class PostExchange {

  /** Resumptions in a row that bring no new event before the exchange gives up. */
  private static final int MAX_RESUMES_WITHOUT_PROGRESS = 5;
  /** How long a stream may stay open after its response arrived before it is reset. */
  private static final long LINGER_AFTER_ANSWER_MS = 2_000;

  private final StreamableHttpTransport t;
  private final JsonObject message;
  private final String method;
  private final String key;
  private final boolean initialize;
  private final Handler<JsonObject> sink;
  private final Promise<Void> result = Promise.promise();
  private HttpClientRequest current;
  private boolean aborted;
  private boolean answered;
  private String lastEventId;
  private long retryMs = StreamableHttpTransport.DEFAULT_RECONNECT_MS;
  private int resumesWithoutProgress;
  private long timer = -1;

  PostExchange(StreamableHttpTransport transport, JsonObject message, Handler<JsonObject> sink) {
    this.t = transport;
    this.message = message;
    this.sink = sink;
    String m = message.getValue("method") instanceof String s ? s : null;
    this.method = m != null ? m : "response";
    this.key = m != null ? JsonRpc.idKey(message.getValue("id")) : null;
    this.initialize = "initialize".equals(m);
  }

  /** @return the correlation key of the request, or {@code null} for notifications and responses */
  String key() {
    return key;
  }

  /** Sends the POST; see {@link #result()}. */
  PostExchange start() {
    long idle = key == null ? t.options().getTimeoutMs()
      : Math.max(t.options().getTimeoutMs(), t.options().getMaxTotalTimeoutMs());
    t.endpoint().send(HttpMethod.POST, t.endpoint().uri(), t.postHeaders(initialize), message.toBuffer(), idle,
      req -> current = req).onComplete(ar -> {
        if (aborted) {
          resetIfOpen(ar.succeeded() ? ar.result() : null);
          return;
        }
        if (ar.failed()) {
          t.connectFailure(ar.cause());
          result.tryFail(ar.cause());
          return;
        }
        onPostResponse(ar.result());
      });
    return this;
  }

  /** @return completes when the exchange is over; fails with the reason it could not finish */
  Future<Void> result() {
    return result.future();
  }

  private void onPostResponse(HttpClientResponse resp) {
    t.reachable();
    int sc = resp.statusCode();
    if (sc < 200 || sc >= 300) {
      t.endpoint().statusError(HttpMethod.POST, t.endpoint().uri(), resp).onComplete(e -> result.tryFail(e.result()));
      return;
    }
    if (initialize) {
      t.captureSession(resp);
    }
    if (key == null || sc == 202) {
      // accepted; a 202 may still carry a body, which means nothing
      resp.handler(b -> { });
      resp.exceptionHandler(err -> { });
      result.tryComplete();
      return;
    }
    read(resp);
  }

  private void read(HttpClientResponse resp) {
    boolean stream = MessageReader.isEventStream(resp);
    MessageReader reader = MessageReader.read(t.name(), resp, t.options().getMaxMessageBytes(), lastEventId,
      this::onMessage, null);
    reader.done().onComplete(ar -> {
      vertxCancel();
      if (aborted) {
        return;
      }
      if (reader.lastEventId() != null && !Objects.equals(reader.lastEventId(), lastEventId)) {
        resumesWithoutProgress = 0;
        lastEventId = reader.lastEventId();
      }
      if (reader.retry() != null) {
        retryMs = reader.retry();
      }
      if (answered) {
        result.tryComplete();
      } else if (reader.oversized() != null) {
        result.tryFail(new McpException(Kind.PROTOCOL, "server '" + t.name() + "': the answer to " + method
          + " exceeded the " + t.options().getMaxMessageBytes() + "-byte message limit", reader.oversized()));
      } else if (!stream && ar.succeeded()) {
        // an empty JSON body: accepted, the answer comes on another stream
        result.tryComplete();
      } else if (lastEventId != null) {
        scheduleResume();
      } else {
        result.tryFail(new McpException(Kind.TRANSPORT, "server '" + t.name() + "': the response stream for " + method
          + (ar.failed() ? " broke (" + ar.cause().getMessage() + ")" : " ended") + " without an answer"));
      }
    });
  }

  private void onMessage(JsonObject msg) {
    if (key != null && JsonRpc.isResponse(msg) && key.equals(JsonRpc.idKey(msg.getValue("id")))) {
      answered = true;
      // the server SHOULD end the stream now; do not hold the connection if it does not
      timer = t.vertx().setTimer(LINGER_AFTER_ANSWER_MS, id -> {
        if (current != null) {
          current.reset();
        }
      });
    }
    sink.handle(msg);
  }

  private void scheduleResume() {
    if (++resumesWithoutProgress > MAX_RESUMES_WITHOUT_PROGRESS) {
      result.tryFail(new McpException(Kind.TRANSPORT, "server '" + t.name() + "': gave up resuming the response stream for "
        + method + " after " + MAX_RESUMES_WITHOUT_PROGRESS + " attempts without progress"));
      return;
    }
    timer = t.vertx().setTimer(Math.max(1, retryMs), id -> resume());
  }

  private void resume() {
    t.endpoint().send(HttpMethod.GET, t.endpoint().uri(), t.streamHeaders(lastEventId), null, 0,
      req -> current = req).onComplete(ar -> {
        if (aborted) {
          resetIfOpen(ar.succeeded() ? ar.result() : null);
          return;
        }
        if (ar.failed()) {
          t.connectFailure(ar.cause());
          result.tryFail(ar.cause());
          return;
        }
        HttpClientResponse resp = ar.result();
        t.reachable();
        if (resp.statusCode() / 100 != 2 || !MessageReader.isEventStream(resp)) {
          t.endpoint().statusError(HttpMethod.GET, t.endpoint().uri(), resp).onComplete(e -> result.tryFail(e.result()));
          return;
        }
        read(resp);
      });
  }

  /** Stops the exchange (cancelled request, closing transport) and resets its stream. */
  void abort(Throwable cause) {
    aborted = true;
    vertxCancel();
    if (current != null) {
      current.reset();
    }
    result.tryFail(cause);
  }

  private void vertxCancel() {
    if (timer >= 0) {
      t.vertx().cancelTimer(timer);
      timer = -1;
    }
  }

  private static void resetIfOpen(HttpClientResponse resp) {
    if (resp != null) {
      resp.request().reset();
    }
  }
}
