package io.agentbus.http;

import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the API's connections from being held by clients that do not use them: a new
 * connection must send a complete request head within {@code headerTimeoutMs}; a connection
 * waiting on its client (for the next request, or for the rest of a request body) is closed
 * after {@code idleTimeoutMs}; at most {@code maxConnections} are open at once.
 *
 * <p>Unlike Vert.x's {@code idleTimeout} (which closes a connection without reads or writes,
 * whatever it is doing), time spent answering never counts: a turn that runs for minutes
 * without a byte on the wire, or an SSE stream, keeps its connection.
 *
 * <p>A connection beyond the limit takes the place of this instance's connection that has
 * waited longest on its client with nothing in progress (no head yet, idle, or a body still
 * arriving for a request already answered, such as a 401), so an operator's {@code /health}
 * gets through while idle or half-sent connections fill the limit. Only when every connection
 * is busy (being answered, or sending the body of a request in progress) is the new one closed
 * at once.
 *
 * <p>The open count may be shared by the instances of a group; everything else is touched
 * only on the verticle's event loop. Needs HTTP/1.x (h2c off): the connection handler then
 * runs as soon as a connection is accepted, before it has sent a byte.
 */
final class ConnectionGuard {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final long WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

  private enum Phase { AWAITING_HEAD, READING_BODY, ANSWERING, IDLE, CLOSING }

  /** One accepted connection and the request it is on. */
  private static final class Tracked {
    final HttpConnection conn;
    Phase phase;
    long timer = -1;
    HttpServerRequest request;
    boolean bodyRead;
    boolean answered;

    Tracked(HttpConnection conn) {
      this.conn = conn;
    }
  }

  private final Vertx vertx;
  private final int max;
  private final AtomicInteger open;
  private final long headerTimeoutMs;
  private final long idleTimeoutMs;
  private final AgentbusMetrics metrics;
  private final Map<HttpConnection, Tracked> tracked = new HashMap<>();
  /**
   * The connections the server is doing nothing for (waiting for a request head, idle, or
   * reading the rest of a body already answered), longest waiting first: the ones to close at
   * the limit.
   */
  private final LinkedHashSet<Tracked> waiting = new LinkedHashSet<>();
  private long lastWarning = System.nanoTime() - WARN_EVERY_NANOS;
  private int refusedSinceWarning;

  /**
   * @param open the open connections, shared by the instances that share the limit
   */
  ConnectionGuard(Vertx vertx, HttpApiOptions options, AtomicInteger open, AgentbusMetrics metrics) {
    this.vertx = vertx;
    this.max = options.getMaxConnections();
    this.open = open;
    this.headerTimeoutMs = options.getHeaderTimeoutMs();
    this.idleTimeoutMs = options.getIdleTimeoutMs();
    this.metrics = metrics;
  }

  /** The server's connection handler: admits the connection, or closes it when over the limit. */
  void accept(HttpConnection conn) {
    if (open.incrementAndGet() > max && !evictOne()) {
      int now = open.decrementAndGet();
      conn.close();
      metrics.rejected("connection_limit");
      refusedSinceWarning++;
      long t = System.nanoTime();
      if (t - lastWarning >= WARN_EVERY_NANOS) {
        LOG.warn("HTTP API connection limit reached: {} open, every one busy (http.maxConnections is {});"
          + " {} new connections closed since the last warning", now, max, refusedSinceWarning);
        lastWarning = t;
        refusedSinceWarning = 0;
      }
      return;
    }
    Tracked t = new Tracked(conn);
    tracked.put(conn, t);
    conn.closeHandler(v -> closed(t));
    waitForClient(t, Phase.AWAITING_HEAD, headerTimeoutMs);
  }

  /** Closes the connection that has waited longest with nothing in progress; false when there is none. */
  private boolean evictOne() {
    Iterator<Tracked> it = waiting.iterator();
    if (!it.hasNext()) {
      return false;
    }
    Tracked victim = it.next();
    // it stays counted until its close handler runs; the new connection takes its place
    close(victim, "at the connection limit (" + max + "), a new connection takes its place");
    return true;
  }

  /**
   * Wraps the server's request handler: the request head has arrived, so the connection now
   * waits for the body, then is answered.
   */
  Handler<HttpServerRequest> requests(Handler<HttpServerRequest> next) {
    return req -> {
      Tracked t = tracked.get(req.connection());
      if (t != null && t.phase != Phase.CLOSING) {
        onHead(t, req);
      }
      next.handle(req);
      // answered at once, without reaching a route (a request vertx-web refuses up front)
      if (t != null && req.response().ended()) {
        onAnswered(t, req);
      }
    };
  }

  /** The router's first handler: learns when the response has ended. */
  void track(RoutingContext ctx) {
    Tracked t = tracked.get(ctx.request().connection());
    if (t != null) {
      HttpServerRequest raw = t.request; // ctx.request() is vertx-web's wrapper of it
      // addEndHandler, unlike the response's single endHandler, leaves other handlers' in place
      ctx.addEndHandler(ar -> onAnswered(t, raw));
    }
  }

  private void onHead(Tracked t, HttpServerRequest req) {
    t.request = req;
    t.bodyRead = false;
    t.answered = false;
    waitForClient(t, Phase.READING_BODY, idleTimeoutMs);
    if (req.isEnded()) {
      onBodyRead(t, req);
    } else {
      req.end().onSuccess(v -> onBodyRead(t, req));
    }
  }

  private void onBodyRead(Tracked t, HttpServerRequest req) {
    if (t.request != req || t.phase == Phase.CLOSING || t.bodyRead) {
      return;
    }
    t.bodyRead = true;
    if (t.answered) {
      waitForClient(t, Phase.IDLE, idleTimeoutMs);
    } else {
      t.phase = Phase.ANSWERING;
      cancelTimer(t);
    }
  }

  private void onAnswered(Tracked t, HttpServerRequest req) {
    if (t.request != req || t.phase == Phase.CLOSING || t.answered) {
      return;
    }
    t.answered = true;
    if (t.bodyRead) {
      waitForClient(t, Phase.IDLE, idleTimeoutMs);
    } else {
      // answered before its body came (401, 413...): the rest arrives on the clock started with
      // the head, and nothing is lost if the connection makes room for another
      waiting.add(t);
    }
  }

  private void waitForClient(Tracked t, Phase phase, long timeoutMs) {
    t.phase = phase;
    waiting.remove(t);
    if (phase == Phase.AWAITING_HEAD || phase == Phase.IDLE) {
      waiting.add(t);
    }
    cancelTimer(t);
    t.timer = vertx.setTimer(timeoutMs, id -> {
      if (t.timer == id && t.phase == phase) {
        t.timer = -1;
        if (phase == Phase.AWAITING_HEAD) {
          metrics.rejected("header_timeout");
        }
        close(t, reason(phase, timeoutMs));
      }
    });
  }

  private static String reason(Phase phase, long timeoutMs) {
    return switch (phase) {
      case AWAITING_HEAD -> "no complete request head within " + timeoutMs + " ms (http.headerTimeoutMs)";
      case READING_BODY -> "the request body did not arrive within " + timeoutMs + " ms (http.idleTimeoutMs)";
      default -> "idle for " + timeoutMs + " ms (http.idleTimeoutMs)";
    };
  }

  private void close(Tracked t, String why) {
    LOG.debug("closing HTTP connection from {}: {}", t.conn.remoteAddress(), why);
    t.phase = Phase.CLOSING;
    waiting.remove(t);
    cancelTimer(t);
    t.conn.close();
  }

  private void closed(Tracked t) {
    t.phase = Phase.CLOSING;
    cancelTimer(t);
    waiting.remove(t);
    tracked.remove(t.conn);
    open.decrementAndGet();
  }

  private void cancelTimer(Tracked t) {
    if (t.timer != -1) {
      vertx.cancelTimer(t.timer);
      t.timer = -1;
    }
  }
}
