package io.agentbus.store.impl;

import io.agentbus.store.TokenTable;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Tuple;
import java.util.function.Function;

/**
 * The {@code oauth_tokens} table of a PostgreSQL store, on the store's pool with its deadlines:
 * one statement per call (an upsert for a write). Reads are retried after a lost connection,
 * as the store's are.
 */
final class PgTokenTable implements TokenTable {

  private static final String SELECT = "SELECT sealed FROM oauth_tokens WHERE tenant = $1 AND server_key = $2";
  private static final String UPSERT = "INSERT INTO oauth_tokens (tenant, server_key, sealed, updated_at) VALUES ($1, $2, $3, now()) "
    + "ON CONFLICT (tenant, server_key) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at";
  private static final String DELETE = "DELETE FROM oauth_tokens WHERE tenant = $1 AND server_key = $2";

  private final PgConversationStore store;

  PgTokenTable(PgConversationStore store) {
    this.store = store;
  }

  @Override
  public Future<byte[]> get(String tenant, String serverKey) {
    return params(tenant, serverKey, params -> store.readStatement("read a token", SELECT, params)
      .map(rows -> rows.size() == 0 ? null : rows.iterator().next().getBuffer(0).getBytes()));
  }

  @Override
  public Future<Void> put(String tenant, String serverKey, byte[] value) {
    Buffer copy = Buffer.buffer(value.clone());
    return params(tenant, serverKey, params -> store.writeStatement("store a token", UPSERT, params.addBuffer(copy)).mapEmpty());
  }

  @Override
  public Future<Void> remove(String tenant, String serverKey) {
    return params(tenant, serverKey, params -> store.writeStatement("remove a token", DELETE, params).mapEmpty());
  }

  private static <T> Future<T> params(String tenant, String serverKey, Function<Tuple, Future<T>> then) {
    Tuple params;
    try {
      params = Tuple.of(TokenTable.tenantColumn(tenant, serverKey), serverKey);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return then.apply(params);
  }
}
