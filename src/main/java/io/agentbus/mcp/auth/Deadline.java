package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/** Bounds a future that waits on something outside our control (a person, an ID token source). */
final class Deadline {

  private Deadline() {
  }

  /** @return {@code f}, or a failure with {@code late} when it has not completed within {@code ms} */
  static <T> Future<T> within(Vertx vertx, Future<T> f, long ms, String late) {
    Promise<T> p = Promise.promise();
    long timer = vertx.setTimer(ms, id -> p.tryFail(new McpException(Kind.AUTHORIZATION_FAILED, late)));
    f.onComplete(ar -> {
      vertx.cancelTimer(timer);
      if (ar.succeeded()) {
        p.tryComplete(ar.result());
      } else {
        p.tryFail(ar.cause());
      }
    });
    return p.future();
  }
}
