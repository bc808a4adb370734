package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.sqlclient.Row;
import java.util.ArrayList;
import java.util.List;

/** OAuth tokens in the {@code postgres} store (see {@link PgTestSupport}), each test in a schema of its own. */
class PgTokenTableTest extends TokenTableContract {

  private String schema;

  @Override
  protected StoreOptions options() {
    PgTestSupport.requireServer();
    if (schema == null) {
      schema = PgTestSupport.newSchema();
    }
    return new StoreOptions().setType(StoreOptions.Type.POSTGRES).setUri(PgTestSupport.uri()).setSchema(schema).setPoolSize(4);
  }

  @Override
  protected List<RawRow> rawRows() throws Exception {
    List<RawRow> rows = new ArrayList<>();
    for (Row r : PgTestSupport.sql(vertx, "SELECT tenant, server_key, sealed FROM " + schema + ".oauth_tokens ORDER BY tenant, server_key")) {
      rows.add(new RawRow(r.getString(0), r.getString(1), r.getBuffer(2).getBytes()));
    }
    return rows;
  }

  @Override
  protected void copyRow(String fromTenant, String toTenant, String serverKey) throws Exception {
    assertEquals(1, PgTestSupport.sql(vertx, "INSERT INTO " + schema + ".oauth_tokens (tenant, server_key, sealed) "
      + "SELECT $1, server_key, sealed FROM " + schema + ".oauth_tokens WHERE tenant = $2 AND server_key = $3",
      toTenant, fromTenant, serverKey).rowCount());
  }

  @Override
  protected void afterStoreClosed() throws Exception {
    if (schema != null) {
      PgTestSupport.dropSchema(schema);
    }
  }
}
