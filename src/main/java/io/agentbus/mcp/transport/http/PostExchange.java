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

  /** Where the exchange is in its life. */
  enum Status {
    /** Created, not sent. */
    NEW,
    /** The POST is on its way; no response head yet. */
    POSTING,
    /** Reading the answer: a JSON body or an SSE stream (the POST's or a resumed GET's). */
    READING,
    /** The response arrived; the stream may still run until the server ends it. */
    ANSWERED,
    /** The stream broke after carrying event ids: waiting the retry delay, or the GET is on its way. */
    RESUMING,
    /** Over: {@link #result()} is complete. */
    DONE,
    /** Stopped by {@link #abort}. */
    ABORTED
  }

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
  private Status status = Status.NEW;
  private HttpClientRequest current;
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
    status = Status.POSTING;
    long idle = key == null ? t.options().getTimeoutMs()
      : Math.max(t.options().getTimeoutMs(), t.options().getMaxTotalTimeoutMs());
    t.endpoint().send(HttpMethod.POST, t.endpoint().uri(), t.postHeaders(initialize), message.toBuffer(), idle,
      req -> current = req).onComplete(ar -> {
        if (status == Status.ABORTED) {
          resetIfOpen(ar.succeeded() ? ar.result() : null);
          return;
        }
        if (ar.failed()) {
          t.connectFailure(ar.cause());
          fail(ar.cause());
          return;
        }
        onPostResponse(ar.result());
      });
    return this;
  }

  /** @return where the exchange is in its life */
  Status status() {
    return status;
  }

  private void succeed() {
    if (status != Status.ABORTED) {
      status = Status.DONE;
    }
    result.tryComplete();
  }

  private void fail(Throwable cause) {
    if (status != Status.ABORTED) {
      status = Status.DONE;
    }
    result.tryFail(cause);
  }

  /** @return completes when the exchange is over; fails with the reason it could not finish */
  Future<Void> result() {
    return result.future();
  }

  private void onPostResponse(HttpClientResponse resp) {
    t.reachable();
    int sc = resp.statusCode();
    if (sc < 200 || sc >= 300) {
      t.endpoint().statusError(HttpMethod.POST, t.endpoint().uri(), resp).onComplete(e -> fail(e.result()));
      return;
    }
    if (initialize) {
      t.captureSession(resp);
    }
    if (key == null || sc == 202) {
      // accepted; a 202 may still carry a body, which means nothing
      resp.handler(b -> { });
      resp.exceptionHandler(err -> { });
      succeed();
      return;
    }
    read(resp);
  }

  private void read(HttpClientResponse resp) {
    status = Status.READING;
    boolean stream = MessageReader.isEventStream(resp);
    MessageReader reader = MessageReader.read(t.name(), t.warnings(), resp, t.options().getMaxMessageBytes(), lastEventId,
      this::onMessage, null);
    reader.done().onComplete(ar -> {
      vertxCancel();
      if (status == Status.ABORTED) {
        return;
      }
      if (reader.lastEventId() != null && !Objects.equals(reader.lastEventId(), lastEventId)) {
        resumesWithoutProgress = 0;
        lastEventId = reader.lastEventId();
      }
      if (reader.retry() != null) {
        retryMs = reader.retry();
      }
      if (status == Status.ANSWERED) {
        succeed();
      } else if (reader.oversized() != null) {
        fail(new McpException(Kind.PROTOCOL, "server '" + t.name() + "': the answer to " + method
          + " exceeded the " + t.options().getMaxMessageBytes() + "-byte message limit", reader.oversized()));
      } else if (!stream && ar.succeeded()) {
        // an empty JSON body: accepted, the answer comes on another stream
        succeed();
      } else if (lastEventId != null) {
        scheduleResume();
      } else {
        fail(new McpException(Kind.TRANSPORT, "server '" + t.name() + "': the response stream for " + method
          + (ar.failed() ? " broke (" + ar.cause().getMessage() + ")" : " ended") + " without an answer"));
      }
    });
  }

  private void onMessage(JsonObject msg) {
    if (status == Status.READING && key != null && JsonRpc.isResponse(msg) && key.equals(JsonRpc.idKey(msg.getValue("id")))) {
      status = Status.ANSWERED;
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
      fail(new McpException(Kind.TRANSPORT, "server '" + t.name() + "': gave up resuming the response stream for "
        + method + " after " + MAX_RESUMES_WITHOUT_PROGRESS + " attempts without progress"));
      return;
    }
    status = Status.RESUMING;
    timer = t.vertx().setTimer(Math.max(1, retryMs), id -> {
      timer = -1;
      resume();
    });
  }

  private void resume() {
    t.endpoint().send(HttpMethod.GET, t.endpoint().uri(), t.streamHeaders(lastEventId), null, 0,
      req -> current = req).onComplete(ar -> {
        if (status == Status.ABORTED) {
          resetIfOpen(ar.succeeded() ? ar.result() : null);
          return;
        }
        if (ar.failed()) {
          t.connectFailure(ar.cause());
          fail(ar.cause());
          return;
        }
        HttpClientResponse resp = ar.result();
        t.reachable();
        if (resp.statusCode() / 100 != 2 || !MessageReader.isEventStream(resp)) {
          t.endpoint().statusError(HttpMethod.GET, t.endpoint().uri(), resp).onComplete(e -> fail(e.result()));
          return;
        }
        read(resp);
      });
  }

  /** Stops the exchange (cancelled request, closing transport) and resets its stream. */
  void abort(Throwable cause) {
    if (status == Status.DONE || status == Status.ABORTED) {
      return;
    }
    status = Status.ABORTED;
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
