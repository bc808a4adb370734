package io.agentbus.store.impl;

import io.agentbus.store.StoreException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An open SQLite connection and its cache of prepared statements, keyed by SQL text (sqlite-jdbc
 * caches none, and compiling a statement costs more than running most of ours). Used by the
 * {@link SqliteWorker} thread only, so it takes no locks.
 *
 * <p>The cache hands out statements that stay open: callers bind every parameter of the SQL
 * text, close the result sets they open, and never close a statement. After each job the worker
 * {@link #recycle recycles} what it handed out. Closing the session closes the statements with
 * the connection, so none outlives the connection it was compiled on.
 */
final class SqliteSession {

  /** The most statements kept; the least recently used one is closed to make room. */
  static final int MAX_STATEMENTS = 64;

  private final Connection connection;
  private final AtomicLong prepares;
  private final List<PreparedStatement> handedOut = new ArrayList<>();
  private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(32, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
      // the statements handed out since the last recycle are the most recently used ones,
      // far fewer than the bound: the eldest is never in use
      if (size() <= MAX_STATEMENTS) {
        return false;
      }
      closeQuietly(eldest.getValue());
      return true;
    }
  };

  /**
   * @param connection the open connection, closed with this session
   * @param prepares counts each statement this session compiles
   */
  SqliteSession(Connection connection, AtomicLong prepares) {
    this.connection = connection;
    this.prepares = prepares;
  }

  /** @return the connection, for one-off statements (schema migrations) */
  Connection connection() {
    return connection;
  }

  /**
   * @return the prepared statement for {@code sql}, compiled on first use; the caller must not
   *     close it
   */
  PreparedStatement statement(String sql) throws SQLException {
    PreparedStatement ps = statements.get(sql);
    if (ps == null) {
      ps = connection.prepareStatement(sql);
      prepares.incrementAndGet();
      statements.put(sql, ps);
    }
    if (!handedOut.contains(ps)) {
      handedOut.add(ps);
    }
    return ps;
  }

  /** Runs {@code sql}, a statement without parameters nor rows ({@code BEGIN}, {@code SAVEPOINT s}...). */
  void execute(String sql) throws SQLException {
    statement(sql).execute();
  }

  /**
   * Readies the statements handed out since the last call for reuse: clears their parameters
   * (releasing the bound values) and their batches.
   *
   * @param failure what the work that used them threw, or {@code null}. After a failure of the
   *     driver (anything but a {@link StoreException}) they are closed and forgotten instead, to
   *     be compiled again on next use, as is any that no longer works: sqlite-jdbc finalizes a
   *     statement whose run failed with most errors yet still reports it open, and leaves one
   *     stopped by SQLITE_BUSY unreset.
   */
  void recycle(Throwable failure) {
    boolean keep = failure == null || failure instanceof StoreException;
    for (PreparedStatement ps : handedOut) {
      if (!keep || !cleared(ps)) {
        closeQuietly(ps);
        statements.values().remove(ps);
      }
    }
    handedOut.clear();
  }

  /** @return whether the statement still works, its parameters and batch now cleared */
  private static boolean cleared(PreparedStatement ps) {
    try {
      ps.clearParameters();
      ps.clearBatch();
      return true;
    } catch (SQLException e) {
      return false;
    }
  }

  /** Closes the statements, then the connection. */
  void close() throws SQLException {
    for (PreparedStatement ps : statements.values()) {
      closeQuietly(ps);
    }
    statements.clear();
    handedOut.clear();
    connection.close();
  }

  private static void closeQuietly(PreparedStatement ps) {
    try {
      ps.close();
    } catch (SQLException e) {
      // it dies with its connection anyway
    }
  }
}
