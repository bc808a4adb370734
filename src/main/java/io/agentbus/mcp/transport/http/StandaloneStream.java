package io.agentbus.mcp.transport.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GET stream on which a Streamable HTTP server sends requests and notifications of its
 * own (such as {@code tools/list_changed}). A 405 means the server offers none. When the
 * stream ends or breaks it is reopened with {@code Last-Event-ID} after the server's
 * {@code retry} delay (1 s by default), backing off while reconnecting fails. Confined to
 * the transport's context; one instance per session.
 */
final class StandaloneStream {

  private static final Logger LOG = LoggerFactory.getLogger(StandaloneStream.class);
  private static final long MAX_BACKOFF_MS = 30_000;

  private final StreamableHttpTransport t;
  private final String session;
  private HttpClientRequest current;
  private boolean closed;
  private boolean none;
  private boolean everOpened;
  private String lastEventId;
  private long retryMs = StreamableHttpTransport.DEFAULT_RECONNECT_MS;
  private long backoffMs;
  private long timer = -1;

  StandaloneStream(StreamableHttpTransport transport, String session) {
    this.t = transport;
    this.session = session;
  }

  /**
   * Opens the stream. Completes once the server answered the GET (with a stream, a 405 or
   * another status, which is logged); fails only when the server cannot be reached.
   */
  Future<Void> open() {
    Promise<Void> opened = Promise.promise();
    connect(opened);
    return opened.future();
  }

  private void connect(Promise<Void> opened) {
    timer = -1;
    t.endpoint().send(HttpMethod.GET, t.endpoint().uri(), t.streamHeaders(lastEventId), null, 0, req -> current = req)
      .onComplete(ar -> {
        if (closed) {
          if (ar.succeeded()) {
            ar.result().request().reset();
          }
          complete(opened);
          return;
        }
        if (ar.failed()) {
          if (opened != null) {
            opened.tryFail(ar.cause());
          } else if (!t.connectFailure(ar.cause())) {
            LOG.debug("[{}] GET stream reconnect failed: {}", t.name(), ar.cause().getMessage());
            reconnect(true);
          }
          return;
        }
        onResponse(ar.result());
        complete(opened);
      });
  }

  private static void complete(Promise<Void> opened) {
    if (opened != null) {
      opened.tryComplete();
    }
  }

  private void onResponse(HttpClientResponse resp) {
    t.reachable();
    int sc = resp.statusCode();
    if (sc == 405) {
      none = true;
      resp.handler(b -> { });
      LOG.debug("[{}] server offers no GET stream (405)", t.name());
      return;
    }
    if (sc / 100 != 2 || !MessageReader.isEventStream(resp)) {
      t.endpoint().statusError(HttpMethod.GET, t.endpoint().uri(), resp).onComplete(ar -> {
        HttpStatusException e = ar.result();
        if (closed) {
          return;
        }
        if (e.sessionGone() && session != null) {
          closed = true;
          t.sessionLost(session);
        } else if (!everOpened) {
          // never worked: treat like 405 rather than retrying forever
          none = true;
          LOG.warn("[{}] no GET stream: {}", t.name(), e.getMessage());
        } else {
          LOG.warn("[{}] GET stream refused: {}", t.name(), e.getMessage());
          reconnect(true);
        }
      });
      return;
    }
    backoffMs = 0;
    everOpened = true;
    MessageReader reader = MessageReader.read(t.name(), resp, t.options().getMaxMessageBytes(), lastEventId,
      t::deliver, null);
    reader.done().onComplete(ar -> {
      if (reader.lastEventId() != null) {
        lastEventId = reader.lastEventId();
      }
      if (reader.retry() != null) {
        retryMs = reader.retry();
      }
      if (!closed) {
        LOG.debug("[{}] GET stream {}; reconnecting in {} ms", t.name(), ar.succeeded() ? "ended" : "broke", retryMs);
        reconnect(false);
      }
    });
  }

  private void reconnect(boolean failed) {
    long delay = retryMs;
    if (failed) {
      backoffMs = backoffMs == 0 ? Math.max(retryMs, 1) : Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      delay = backoffMs;
    }
    timer = t.vertx().setTimer(Math.max(1, delay), id -> {
      if (!closed) {
        connect(null);
      }
    });
  }

  /** @return whether the server said it has no GET stream */
  boolean none() {
    return none;
  }

  /** Closes the stream for good; no reconnect follows. */
  void close() {
    closed = true;
    if (timer >= 0) {
      t.vertx().cancelTimer(timer);
    }
    if (current != null) {
      current.reset();
    }
  }
}
