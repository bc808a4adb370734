package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.fail;

import io.agentbus.store.impl.PgUri;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The PostgreSQL server the tests use: {@code AGENTBUS_TEST_PG_URI} (default
 * {@value #DEFAULT_URI}). Where none answers the PostgreSQL tests are skipped with one line
 * saying why, unless {@code AGENTBUS_REQUIRE_PG=1} (or {@code -Dagentbus.requirePg=true}), as CI
 * sets it: then they fail.
 */
final class PgTestSupport {

  static final String DEFAULT_URI = "postgresql://postgres@127.0.0.1:5432/test";

  private static Boolean reachable;
  private static String why;

  private PgTestSupport() {
  }

  static String uri() {
    String env = System.getenv("AGENTBUS_TEST_PG_URI");
    return env == null || env.isBlank() ? DEFAULT_URI : env;
  }

  static boolean required() {
    String env = System.getenv("AGENTBUS_REQUIRE_PG");
    return (env != null && !env.isBlank() && !env.equals("0") && !env.equalsIgnoreCase("false"))
      || Boolean.getBoolean("agentbus.requirePg");
  }

  /** Skips (or, when required, fails) the calling test when the server does not answer; asks once per JVM. */
  static synchronized void requireServer() {
    if (reachable == null) {
      Vertx vertx = Vertx.vertx();
      try {
        PgConnectOptions options = PgConnectOptions.fromUri(uri());
        PgConnection.connect(vertx, options).compose(c -> c.query("SELECT 1").execute().eventually(c::close))
          .await(10, TimeUnit.SECONDS);
        reachable = true;
      } catch (Exception e) {
        reachable = false;
        why = "PostgreSQL tests skipped: no server answers at " + PgUri.redact(uri()) + " (" + e.getMessage()
          + "); set AGENTBUS_TEST_PG_URI to point at one, AGENTBUS_REQUIRE_PG=1 to fail instead";
        if (!required()) {
          System.err.println(why);
        }
      } finally {
        vertx.close().await();
      }
    }
    if (!reachable) {
      if (required()) {
        fail("AGENTBUS_REQUIRE_PG is set but " + why.substring(why.indexOf("no server")));
      }
      Assumptions.abort(why);
    }
  }

  /** @return a fresh schema name, unique per call */
  static String newSchema() {
    return "agentbus_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
  }

  /** @return {@link #uri()} with {@code application_name} set, so a test can find its store's connections */
  static String uriWithApplicationName(String applicationName) {
    String base = uri();
    return base + (base.contains("?") ? "&" : "?") + "application_name=" + applicationName;
  }

  /** Runs one statement on a connection of its own. */
  static RowSet<Row> sql(Vertx vertx, String sql, Object... params) throws Exception {
    return PgConnection.connect(vertx, PgConnectOptions.fromUri(uri()))
      .compose(c -> (params.length == 0 ? c.query(sql).execute() : c.preparedQuery(sql).execute(Tuple.from(params)))
        .eventually(c::close))
      .await(30, TimeUnit.SECONDS);
  }

  /** Drops a test schema, on a Vert.x instance of its own (the test's may be closed). */
  static void dropSchema(String schema) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      sql(vertx, "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    } finally {
      vertx.close().await();
    }
  }
}
