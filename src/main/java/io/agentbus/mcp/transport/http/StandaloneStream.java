package io.agentbus.mcp.transport.http;

import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GET stream on which a Streamable HTTP server sends requests and notifications of its
 * own (such as {@code tools/list_changed}). It is optional and runs in the background:
 * nothing waits for it, because some servers (the Java SDK on Tomcat) send the response
 * head only with the first event. A 405 means the server offers none. When the stream ends
 * or breaks it is reopened with {@code Last-Event-ID} after the server's {@code retry}
 * delay (1 s by default, never less than {@value #MIN_RECONNECT_MS} ms), backing off while
 * reconnecting fails, or while the stream keeps ending within {@value #SHORT_LIVED_MS} ms of
 * opening: a server that answers every GET with an empty stream and {@code retry: 0} costs a
 * request every few seconds at most, not a thousand a second. Confined to the transport's
 * context; one instance per session.
 */
final class StandaloneStream {

  /** Where the stream is in its life. */
  enum Status {
    /** Not started yet. */
    NEW,
    /** Trying to open it; it has never been open (a refusal now means "no stream"). */
    CONNECTING,
    /** The server answered with an event stream that is being read. */
    OPEN,
    /** It was open and is being reopened (timer or GET in flight). */
    RECONNECTING,
    /** The server has none (405, or refused it before it ever opened). */
    UNSUPPORTED,
    /** Closed for good; no reconnect follows. */
    CLOSED
  }

  static final Logger LOG = LoggerFactory.getLogger(StandaloneStream.class);
  private static final long MAX_BACKOFF_MS = 30_000;
  /** The shortest wait before a reopen, whatever {@code retry} the server asks for. */
  static final long MIN_RECONNECT_MS = 250;
  /** A stream that ends sooner than this after opening counts as a failed attempt. */
  static final long SHORT_LIVED_MS = 1_000;

  private final StreamableHttpTransport t;
  private final String session;
  private Status status = Status.NEW;
  private HttpClientRequest current;
  private String lastEventId;
  private long retryMs = StreamableHttpTransport.DEFAULT_RECONNECT_MS;
  private long backoffMs;
  private long openedNanos;
  private long timer = -1;

  StandaloneStream(StreamableHttpTransport transport, String session) {
    this.t = transport;
    this.session = session;
  }

  /** Starts opening the stream in the background; returns at once. */
  void start() {
    if (status == Status.NEW) {
      status = Status.CONNECTING;
      connect();
    }
  }

  private void connect() {
    timer = -1;
    t.endpoint().send(HttpMethod.GET, t.endpoint().uri(), t.streamHeaders(lastEventId), null, 0, req -> current = req)
      .onComplete(ar -> {
        if (status == Status.CLOSED) {
          if (ar.succeeded()) {
            ar.result().request().reset();
          }
          return;
        }
        if (ar.failed()) {
          if (!t.connectFailure(ar.cause())) {
            LOG.debug("[{}] GET stream connect failed: {}", t.name(), ar.cause().getMessage());
            reconnect(true);
          }
          return;
        }
        onResponse(ar.result());
      });
  }

  private void onResponse(HttpClientResponse resp) {
    t.reachable();
    int sc = resp.statusCode();
    if (sc == 405) {
      status = Status.UNSUPPORTED;
      resp.handler(b -> { });
      LOG.debug("[{}] server offers no GET stream (405)", t.name());
      return;
    }
    if (sc / 100 != 2 || !MessageReader.isEventStream(resp)) {
      t.endpoint().statusError(HttpMethod.GET, t.endpoint().uri(), resp).onComplete(ar -> {
        HttpStatusException e = ar.result();
        if (status == Status.CLOSED) {
          return;
        }
        if (e.sessionGone() && session != null) {
          status = Status.CLOSED;
          t.sessionLost(session);
        } else if (status == Status.CONNECTING) {
          // never worked: treat like 405 rather than retrying forever
          status = Status.UNSUPPORTED;
          LOG.warn("[{}] no GET stream: {}", t.name(), e.getMessage());
        } else {
          if (t.streamRefusals().permit()) {
            LOG.warn("[{}] GET stream refused: {}", t.name(), e.getMessage());
          }
          reconnect(true);
        }
      });
      return;
    }
    status = Status.OPEN;
    openedNanos = System.nanoTime();
    MessageReader reader = MessageReader.read(t.name(), t.warnings(), resp, t.options().getMaxMessageBytes(), lastEventId,
      t::deliver, null);
    reader.done().onComplete(ar -> {
      if (reader.lastEventId() != null) {
        lastEventId = reader.lastEventId();
      }
      if (reader.retry() != null) {
        retryMs = reader.retry();
      }
      if (status != Status.CLOSED) {
        boolean shortLived = System.nanoTime() - openedNanos < SHORT_LIVED_MS * 1_000_000L;
        if (!shortLived) {
          backoffMs = 0;
        }
        LOG.debug("[{}] GET stream {}{}", t.name(), ar.succeeded() ? "ended" : "broke",
          shortLived ? " right after opening; backing off" : "; reconnecting");
        status = Status.RECONNECTING;
        reconnect(shortLived);
      }
    });
  }

  private void reconnect(boolean failed) {
    long delay = Math.max(retryMs, MIN_RECONNECT_MS);
    if (failed) {
      backoffMs = backoffMs == 0 ? delay : Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      delay = backoffMs;
    }
    timer = t.vertx().setTimer(delay, id -> {
      if (status != Status.CLOSED) {
        connect();
      }
    });
  }

  /** @return where the stream is in its life */
  Status status() {
    return status;
  }

  /** Closes the stream for good; no reconnect follows. */
  void close() {
    status = Status.CLOSED;
    if (timer >= 0) {
      t.vertx().cancelTimer(timer);
      timer = -1;
    }
    if (current != null) {
      current.reset();
    }
  }
}
