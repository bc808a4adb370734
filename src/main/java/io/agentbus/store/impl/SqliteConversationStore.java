package io.agentbus.store.impl;

import io.agentbus.store.ConversationPage;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.ConversationSummary;
import io.agentbus.store.NewConversation;
import io.agentbus.store.StoreException;
import io.agentbus.store.StoreException.Kind;
import io.agentbus.store.StoreOptions;
import io.agentbus.store.StoredConversation;
import io.agentbus.store.TokenTable;
import io.agentbus.store.TurnCommit;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code sqlite} store: one file in WAL mode, one connection on one dedicated thread
 * ({@link SqliteWorker}). Writes take the write lock up front ({@code BEGIN IMMEDIATE}), so two
 * processes on one file serialize too, and the version check decides between them; writes
 * queued together commit together (group commit, see {@link SqliteWorker}). Each SQL text is
 * compiled once per connection ({@link SqliteSession}).
 */
public final class SqliteConversationStore implements ConversationStore {

  private static final Logger log = LoggerFactory.getLogger(SqliteConversationStore.class);

  private static final String HEADER_COLUMNS =
    "tenant, title, system_prompt, tools, created_at, updated_at, version, message_count, usage";
  private static final String SUMMARY_COLUMNS =
    "id, tenant, title, created_at, updated_at, version, usage, input_tokens, output_tokens, "
      + "cache_creation_input_tokens, cache_read_input_tokens";

  // The SQL texts are constants: they are the keys of the connection's statement cache.
  private static final String INSERT_CONVERSATION = "INSERT INTO conversations (id, tenant, title, system_prompt, tools, "
    + "created_at, updated_at, version, message_count, usage) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, '{}') ON CONFLICT (id) DO NOTHING";
  private static final String SELECT_HEADER = "SELECT " + HEADER_COLUMNS + " FROM conversations WHERE id = ?";
  private static final String SELECT_MESSAGES =
    "SELECT seq, content FROM conversation_messages WHERE conversation_id = ? AND seq < ? ORDER BY seq";
  private static final String SELECT_FOR_TURN =
    "SELECT version, message_count, usage, title, updated_at FROM conversations WHERE id = ?";
  private static final String UPDATE_FOR_TURN = "UPDATE conversations SET version = ?, message_count = ?, usage = ?, "
    + "input_tokens = ?, output_tokens = ?, cache_creation_input_tokens = ?, cache_read_input_tokens = ?, title = ?, "
    + "updated_at = ? WHERE id = ?";
  private static final String INSERT_MESSAGE =
    "INSERT INTO conversation_messages (conversation_id, seq, turn, content) VALUES (?, ?, ?, ?)";
  private static final String DELETE_CONVERSATION = "DELETE FROM conversations WHERE id = ?";
  private static final String DELETE_MESSAGES = "DELETE FROM conversation_messages WHERE conversation_id = ?";
  /** By tenant given, then by cursor given: [none, cursor, tenant, tenant and cursor]. */
  private static final List<String> LIST = List.of(listSql(false, false), listSql(false, true), listSql(true, false),
    listSql(true, true));
  private static final String TOTALS_NO_TENANT = totalsSql(false);
  private static final String TOTALS_TENANT = totalsSql(true);

  private final String name;
  private final SqliteWorker worker;
  private final TokenTable tokens;

  private SqliteConversationStore(String name, SqliteWorker worker) {
    this.name = name;
    this.worker = worker;
    this.tokens = new SqliteTokenTable(worker);
  }

  /** Opens (creating it and its parent directories when missing) and migrates the file. */
  public static Future<ConversationStore> open(Vertx vertx, StoreOptions options) {
    Path path = Path.of(options.getPath()).toAbsolutePath().normalize();
    String name = "conversation store sqlite (" + options.getPath() + ")";
    SqliteWorker worker = new SqliteWorker(vertx, name, options.getRequestTimeoutMs(), options.getMaxPendingRequests(),
      () -> connect(path, options));
    SqliteConversationStore store = new SqliteConversationStore(name, worker);
    return worker.submit("open", SqliteConversationStore::migrate)
      .<ConversationStore>map(version -> {
        log.info("{} open (schema version {})", name, version);
        return store;
      })
      .recover(err -> worker.close().transform(ignored -> Future.failedFuture(new StoreException(
        err instanceof StoreException se && se.kind() != Kind.FAILED ? se.kind() : Kind.UNAVAILABLE,
        name + " cannot be opened: " + messageOf(name, err), err))));
  }

  private static String messageOf(String name, Throwable err) {
    String msg = err.getMessage() == null ? err.toString() : err.getMessage();
    // the worker's messages already name the store
    return msg.startsWith(name + ": ") ? msg.substring(name.length() + 2) : msg;
  }

  private static Connection connect(Path path, StoreOptions options) throws Exception {
    Path parent = path.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Connection c = DriverManager.getConnection("jdbc:sqlite:" + path);
    try (Statement s = c.createStatement()) {
      // a locked file fails as UNAVAILABLE ("database is locked") a little before the request's deadline
      s.execute("PRAGMA busy_timeout = " + Math.max(1, options.getRequestTimeoutMs() * 3 / 4));
      try (ResultSet rs = s.executeQuery("PRAGMA journal_mode = WAL")) {
        String mode = rs.next() ? rs.getString(1) : "?";
        if (!"wal".equalsIgnoreCase(mode)) {
          log.warn("conversation store sqlite ({}): WAL mode not available, journal_mode is {}", path, mode);
        }
      }
      s.execute("PRAGMA synchronous = " + options.getSynchronous().name().toUpperCase(Locale.ROOT));
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  private static int migrate(SqliteSession session) throws SQLException {
    Connection c = session.connection();
    try (Statement s = c.createStatement()) {
      s.execute(Migrations.SQLITE_VERSION_TABLE);
    }
    return inTransaction(session, () -> {
      int current;
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM agentbus_schema_version")) {
        rs.next();
        current = rs.getInt(1);
      }
      if (current > Migrations.LATEST) {
        throw new StoreException(Kind.INVALID, "schema version " + current + " is newer than this build's ("
          + Migrations.LATEST + "): a newer Agentbus wrote this file");
      }
      for (int v = current + 1; v <= Migrations.LATEST; v++) {
        try (Statement s = c.createStatement()) {
          for (String sql : Migrations.SQLITE.get(v - 1)) {
            s.execute(sql);
          }
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO agentbus_schema_version (version, applied_at) VALUES (?, ?)")) {
          ps.setInt(1, v);
          ps.setLong(2, System.currentTimeMillis());
          ps.executeUpdate();
        }
        log.info("conversation store sqlite: schema migrated to version {}", v);
      }
      return Migrations.LATEST;
    });
  }

  /** Body of a transaction, run on the worker thread. */
  private interface TxBody<T> {
    T run() throws SQLException;
  }

  /** Runs {@code body} between {@code BEGIN IMMEDIATE} (the write lock) and {@code COMMIT}; anything thrown rolls back. */
  private static <T> T inTransaction(SqliteSession s, TxBody<T> body) throws SQLException {
    return inTransaction(s, "BEGIN IMMEDIATE", body);
  }

  /** Runs {@code body} in a read transaction: one snapshot, no write lock. */
  private static <T> T inReadTransaction(SqliteSession s, TxBody<T> body) throws SQLException {
    return inTransaction(s, "BEGIN DEFERRED", body);
  }

  private static <T> T inTransaction(SqliteSession s, String begin, TxBody<T> body) throws SQLException {
    s.execute(begin);
    try {
      T result = body.run();
      s.execute("COMMIT");
      return result;
    } catch (SQLException | RuntimeException e) {
      try {
        s.execute("ROLLBACK");
      } catch (SQLException rollback) {
        e.addSuppressed(rollback);
      }
      throw e;
    }
  }

  @Override
  public Optional<TokenTable> tokenTable() {
    return Optional.of(tokens);
  }

  @Override
  public String describe() {
    return name.substring("conversation store ".length());
  }

  @Override
  public Future<StoredConversation> insert(NewConversation conv) {
    Objects.requireNonNull(conv, "'conversation' cannot be null");
    String tools = conv.tools().encode();
    // copied on the caller's thread, as encoded: what the caller does with its object afterwards changes neither
    JsonObject toolsCopy = conv.tools().copy();
    return worker.submitWrite("insert " + conv.id(), s -> {
      long now = System.currentTimeMillis();
      PreparedStatement ps = s.statement(INSERT_CONVERSATION);
      ps.setString(1, conv.id());
      ps.setString(2, conv.tenant());
      ps.setString(3, conv.title());
      ps.setString(4, conv.system());
      ps.setString(5, tools);
      ps.setLong(6, now);
      ps.setLong(7, now);
      if (ps.executeUpdate() == 0) {
        throw new StoreException(Kind.CONFLICT, "conversation " + conv.id() + " already exists");
      }
      return new StoredConversation(conv.id(), conv.tenant(), conv.title(), conv.system(), toolsCopy, now, now, 0,
        new JsonObject(), List.of());
    });
  }

  @Override
  public Future<StoredConversation> load(String id) {
    try {
      StoreSupport.checkId(id);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    return worker.submit("load " + id, s -> inReadTransaction(s, () -> {
      StoredConversation header;
      int count;
      PreparedStatement headerQuery = s.statement(SELECT_HEADER);
      headerQuery.setString(1, id);
      try (ResultSet rs = headerQuery.executeQuery()) {
        if (!rs.next()) {
          throw StoreSupport.notFound(id);
        }
        header = new StoredConversation(id, rs.getString(1), rs.getString(2), rs.getString(3),
          json(id, "its tool selection", rs.getString(4)), rs.getLong(5), rs.getLong(6), rs.getLong(7),
          json(id, "its usage", rs.getString(9)), List.of());
        count = rs.getInt(8);
      }
      List<JsonObject> messages = new ArrayList<>(count);
      PreparedStatement messageQuery = s.statement(SELECT_MESSAGES);
      messageQuery.setString(1, id);
      messageQuery.setInt(2, count);
      try (ResultSet rs = messageQuery.executeQuery()) {
        while (rs.next()) {
          int seq = rs.getInt(1);
          if (seq != messages.size()) {
            throw StoreSupport.corrupt(name, id, "message " + messages.size() + " is missing", null);
          }
          messages.add(json(id, "message " + seq, rs.getString(2)));
        }
      }
      if (messages.size() != count) {
        throw StoreSupport.corrupt(name, id, count + " messages recorded, " + messages.size() + " found", null);
      }
      return new StoredConversation(id, header.tenant(), header.title(), header.system(), header.tools(), header.createdAt(),
        header.updatedAt(), header.version(), header.usage(), List.copyOf(messages));
    }));
  }

  private JsonObject json(String id, String what, String text) {
    if (text == null) {
      throw StoreSupport.corrupt(name, id, what + " is null", null);
    }
    try {
      return new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      throw StoreSupport.corrupt(name, id, what + " is not a JSON object", null);
    }
  }

  @Override
  public Future<TurnCommit> appendTurn(String id, long expectedVersion, List<JsonObject> messages, JsonObject usage) {
    List<String> encoded = new ArrayList<>();
    try {
      StoreSupport.checkTurn(id, expectedVersion, messages);
      // encoded on the caller's thread: the caller may keep using its objects afterwards
      messages.forEach(m -> encoded.add(m.encode()));
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    String title = StoreSupport.title(messages);
    JsonObject turnUsage = usage == null ? null : usage.copy();
    return worker.submitWrite("appendTurn " + id, s -> {
      long version;
      int count;
      String totalsText;
      JsonObject totals;
      String oldTitle;
      long oldUpdated;
      PreparedStatement select = s.statement(SELECT_FOR_TURN);
      select.setString(1, id);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw StoreSupport.notFound(id);
        }
        version = rs.getLong(1);
        count = rs.getInt(2);
        if (version != expectedVersion) {
          throw StoreSupport.conflict(id, expectedVersion, version);
        }
        totalsText = rs.getString(3);
        totals = json(id, "its usage", totalsText);
        oldTitle = rs.getString(4);
        oldUpdated = rs.getLong(5);
      }
      // without usage for this turn the totals stand as read: no copy, and the stored text is kept
      JsonObject merged = turnUsage == null ? totals : StoreSupport.mergeUsage(totals, turnUsage);
      String mergedText = turnUsage == null ? totalsText : merged.encode();
      String newTitle = oldTitle != null ? oldTitle : title;
      long now = Math.max(System.currentTimeMillis(), oldUpdated);
      long newVersion = version + 1;
      PreparedStatement update = s.statement(UPDATE_FOR_TURN);
      update.setLong(1, newVersion);
      update.setInt(2, count + encoded.size());
      update.setString(3, mergedText);
      for (int i = 0; i < StoreSupport.USAGE_COLUMNS.size(); i++) {
        update.setLong(4 + i, StoreSupport.usageLong(merged, StoreSupport.USAGE_COLUMNS.get(i)));
      }
      update.setString(8, newTitle);
      update.setLong(9, now);
      update.setString(10, id);
      update.executeUpdate();
      if (!encoded.isEmpty()) {
        PreparedStatement insert = s.statement(INSERT_MESSAGE);
        for (int i = 0; i < encoded.size(); i++) {
          insert.setString(1, id);
          insert.setInt(2, count + i);
          insert.setLong(3, newVersion);
          insert.setString(4, encoded.get(i));
          insert.addBatch();
        }
        insert.executeBatch();
      }
      return new TurnCommit(newVersion, now, count + encoded.size(), merged, newTitle);
    });
  }

  @Override
  public Future<ConversationPage> list(String tenant, int limit, String afterCursor) {
    StoreSupport.Cursor after;
    try {
      StoreSupport.checkLimit(limit);
      after = StoreSupport.decodeCursor(afterCursor);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    String sql = LIST.get((tenant == null ? 0 : 2) + (after == null ? 0 : 1));
    return worker.submit("list", s -> {
      List<ConversationSummary> items = new ArrayList<>();
      boolean more = false;
      PreparedStatement ps = s.statement(sql);
      int p = 1;
      if (tenant != null) {
        ps.setString(p++, tenant);
      }
      if (after != null) {
        ps.setLong(p++, after.updatedAt());
        ps.setString(p++, after.id());
      }
      ps.setInt(p, limit + 1);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (items.size() == limit) {
            more = true;
            break;
          }
          long[] columns = new long[StoreSupport.USAGE_COLUMNS.size()];
          for (int i = 0; i < columns.length; i++) {
            columns[i] = rs.getLong(8 + i);
          }
          String id = rs.getString(1);
          items.add(new ConversationSummary(id, rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5),
            listedUsage(id, rs.getString(7), columns), rs.getLong(6)));
        }
      }
      ConversationSummary last = more ? items.get(items.size() - 1) : null;
      return new ConversationPage(items, last == null ? null : StoreSupport.encodeCursor(last.updatedAt(), last.id()));
    });
  }

  private static String listSql(boolean tenant, boolean after) {
    return "SELECT " + SUMMARY_COLUMNS + " FROM conversations WHERE "
      + (tenant ? "tenant = ?" : "tenant IS NULL")
      + (after ? " AND (updated_at, id) < (?, ?)" : "")
      + " ORDER BY updated_at DESC, id DESC LIMIT ?";
  }

  /** A listing survives one damaged usage: that item shows the usage columns instead. */
  private JsonObject listedUsage(String id, String text, long[] columns) {
    try {
      return new JsonObject(text);
    } catch (RuntimeException e) {
      log.warn("{}: conversation {} has an unreadable usage object; listed with its token columns", name, id);
      JsonObject usage = new JsonObject();
      for (int i = 0; i < columns.length; i++) {
        usage.put(StoreSupport.USAGE_COLUMNS.get(i), columns[i]);
      }
      return usage;
    }
  }

  @Override
  public Future<Void> delete(String id) {
    try {
      StoreSupport.checkId(id);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    return worker.submitWrite("delete " + id, s -> {
      PreparedStatement conversation = s.statement(DELETE_CONVERSATION);
      conversation.setString(1, id);
      if (conversation.executeUpdate() == 0) {
        throw StoreSupport.notFound(id);
      }
      PreparedStatement messages = s.statement(DELETE_MESSAGES);
      messages.setString(1, id);
      messages.executeUpdate();
      return null;
    });
  }

  @Override
  public Future<JsonObject> usageTotals(String tenant) {
    String sql = tenant == null ? TOTALS_NO_TENANT : TOTALS_TENANT;
    return worker.submit("usageTotals", s -> {
      PreparedStatement ps = s.statement(sql);
      if (tenant != null) {
        ps.setString(1, tenant);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long[] columns = new long[StoreSupport.USAGE_COLUMNS.size()];
        for (int i = 0; i < columns.length; i++) {
          columns[i] = rs.getLong(3 + i);
        }
        return StoreSupport.totals(rs.getLong(1), rs.getLong(2), columns);
      }
    });
  }

  private static String totalsSql(boolean tenant) {
    return "SELECT count(*), coalesce(sum(version), 0), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
      + "coalesce(sum(cache_creation_input_tokens), 0), coalesce(sum(cache_read_input_tokens), 0) FROM conversations WHERE "
      + (tenant ? "tenant = ?" : "tenant IS NULL");
  }

  /**
   * @return how many SQL statements this store compiled since it was opened: statements are
   *     cached per connection, so this grows only with each new connection and each statement
   *     text first used on it (for tests and diagnostics)
   */
  public long statementsPrepared() {
    return worker.statementsPrepared();
  }

  @Override
  public Future<Void> close() {
    return worker.close();
  }
}
