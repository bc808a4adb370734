package io.agentbus.store.impl;

import io.agentbus.store.TokenTable;
import io.vertx.core.Future;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.function.Function;

/** The {@code oauth_tokens} table of an SQLite store, through the store's {@link SqliteWorker} thread. */
final class SqliteTokenTable implements TokenTable {

  private static final String SELECT = "SELECT sealed FROM oauth_tokens WHERE tenant = ? AND server_key = ?";
  private static final String UPSERT = "INSERT INTO oauth_tokens (tenant, server_key, sealed, updated_at) VALUES (?, ?, ?, ?) "
    + "ON CONFLICT (tenant, server_key) DO UPDATE SET sealed = excluded.sealed, updated_at = excluded.updated_at";
  private static final String DELETE = "DELETE FROM oauth_tokens WHERE tenant = ? AND server_key = ?";

  private final SqliteWorker worker;

  SqliteTokenTable(SqliteWorker worker) {
    this.worker = worker;
  }

  @Override
  public Future<byte[]> get(String tenant, String serverKey) {
    return keyed(tenant, serverKey, column -> worker.submit("read a token", s -> {
      PreparedStatement ps = s.statement(SELECT);
      ps.setString(1, column);
      ps.setString(2, serverKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getBytes(1) : null;
      }
    }));
  }

  @Override
  public Future<Void> put(String tenant, String serverKey, byte[] value) {
    byte[] copy = value.clone();
    return keyed(tenant, serverKey, column -> worker.submitWrite("store a token", s -> {
      PreparedStatement ps = s.statement(UPSERT);
      ps.setString(1, column);
      ps.setString(2, serverKey);
      ps.setBytes(3, copy);
      ps.setLong(4, System.currentTimeMillis());
      ps.executeUpdate();
      return null;
    }));
  }

  @Override
  public Future<Void> remove(String tenant, String serverKey) {
    return keyed(tenant, serverKey, column -> worker.submitWrite("remove a token", s -> {
      PreparedStatement ps = s.statement(DELETE);
      ps.setString(1, column);
      ps.setString(2, serverKey);
      ps.executeUpdate();
      return null;
    }));
  }

  /** Runs {@code then} with the row's tenant column, or fails (INVALID) for a key the table cannot hold. */
  private static <T> Future<T> keyed(String tenant, String serverKey, Function<String, Future<T>> then) {
    String column;
    try {
      column = TokenTable.tenantColumn(tenant, serverKey);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    return then.apply(column);
  }
}
