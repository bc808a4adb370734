package io.agentbus.http;

import io.agentbus.metrics.AgentbusMetrics;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Writes JSON answers and errors; skips responses whose client is gone. */
final class Responses {

  private static final Logger LOG = LoggerFactory.getLogger(Responses.class);
  static final String JSON = "application/json; charset=utf-8";
  private static final CharSequence JSON_HEADER = HttpHeaders.createOptimized(JSON);

  private final AgentbusMetrics metrics;
  private final String retryAfter;

  Responses(AgentbusMetrics metrics, int retryAfterSeconds) {
    this.metrics = metrics;
    this.retryAfter = String.valueOf(retryAfterSeconds);
  }

  private static boolean gone(HttpServerResponse r) {
    return r.ended() || r.closed() || r.headWritten();
  }

  void json(RoutingContext ctx, int status, JsonObject body) {
    HttpServerResponse r = ctx.response();
    if (gone(r)) {
      return;
    }
    r.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, JSON_HEADER).end(body.toBuffer());
  }

  void noContent(RoutingContext ctx) {
    HttpServerResponse r = ctx.response();
    if (!gone(r)) {
      r.setStatusCode(204).end();
    }
  }

  /** Writes any failure: an {@link ApiError} as it is, anything else as a 500 (logged). */
  void error(RoutingContext ctx, Throwable err) {
    ApiError e;
    if (err instanceof ApiError a) {
      e = a;
    } else {
      LOG.warn("{} {} failed: {}", ctx.request().method(), ctx.request().path(), String.valueOf(err));
      e = ApiError.of(500, "internal error");
    }
    metrics.rejected(e.type());
    HttpServerResponse r = ctx.response();
    if (gone(r)) {
      return;
    }
    if (e.retryAfterSeconds() > 0) {
      r.putHeader(HttpHeaders.RETRY_AFTER, String.valueOf(e.retryAfterSeconds()));
    } else if (e.status() == 503 || e.status() == 429) {
      r.putHeader(HttpHeaders.RETRY_AFTER, retryAfter);
    }
    if (e.status() == 401) {
      r.putHeader("WWW-Authenticate", BearerAuth.CHALLENGE);
    }
    LOG.debug("{} {} -> {} {}", ctx.request().method(), ctx.request().path(), e.status(), e.getMessage());
    r.setStatusCode(e.status()).putHeader(HttpHeaders.CONTENT_TYPE, JSON).end(e.toJson().encode());
  }
}
