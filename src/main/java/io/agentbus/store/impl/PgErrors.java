package io.agentbus.store.impl;

import io.agentbus.store.StoreException;
import io.agentbus.store.StoreException.Kind;
import io.vertx.core.VertxException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/** Sorts what the PostgreSQL client reports into {@link StoreException} kinds, with scrubbed messages. */
final class PgErrors {

  private PgErrors() {
  }

  static StoreException map(String store, String op, String uri, long timeoutMs, Throwable err) {
    if (err instanceof StoreException se) {
      return se;
    }
    String prefix = store + ": " + op;
    if (err instanceof TimeoutException) {
      return new StoreException(Kind.TIMEOUT, prefix + " did not finish within " + timeoutMs
        + " ms (a write may still commit: reload before retrying)", null);
    }
    String message = PgUri.scrub(err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage(), uri);
    if (err instanceof PgException pg) {
      String state = pg.getSqlState() == null ? "" : pg.getSqlState();
      if (state.equals("57014")) {
        // statement_timeout (set to requestTimeoutMs) or a cancel
        return new StoreException(Kind.TIMEOUT, prefix + " timed out in the database: " + message, err);
      }
      if (state.startsWith("08") || state.startsWith("57") || state.startsWith("53") || state.startsWith("28")
        || state.equals("3D000") || state.equals("40001") || state.equals("40P01") || state.equals("25006")) {
        return new StoreException(Kind.UNAVAILABLE, prefix + " failed: database unavailable: " + message, err);
      }
      return new StoreException(Kind.FAILED, prefix + " failed: " + message, err);
    }
    if (err instanceof ClosedConnectionException || err instanceof IOException || err instanceof VertxException) {
      return new StoreException(Kind.UNAVAILABLE, prefix + " failed: database unavailable: " + message, err);
    }
    return new StoreException(Kind.FAILED, prefix + " failed: " + message, err);
  }

  /** @return whether {@code cause} says the connection died (so a read may be retried on a new one) */
  static boolean connectionLost(Throwable cause) {
    if (cause instanceof ClosedConnectionException || cause instanceof IOException) {
      return true;
    }
    if (cause instanceof VertxException && String.valueOf(cause.getMessage()).contains("Connection is not active")) {
      // a pooled connection the server closed, met before the pool saw the close
      return true;
    }
    if (cause instanceof PgException pg && pg.getSqlState() != null) {
      String state = pg.getSqlState();
      return state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03");
    }
    return false;
  }
}
