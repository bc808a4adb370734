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
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClientOptions;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code postgres} store, on the reactive vertx-pg-client pool: no thread of its own,
 * outcomes on the caller's context. Every write is one statement, in one round trip (prepared
 * statements are cached per connection): a turn updates the conversation's row only at the
 * expected version, merging the usage in the database ({@code agentbus_merge_usage}, migration
 * 2), and inserts the messages in the same statement; a second query, only when it matched
 * nothing, tells NOT_FOUND from CONFLICT. A delete takes the messages with it (ON DELETE
 * CASCADE). A load sends its two queries pipelined on one connection. Reads retry after a lost
 * connection; writes never do (a lost commit is ambiguous: the caller reloads).
 *
 * <p>JSON goes to the server as text ({@code $n::text::jsonb}), encoded once on the caller's
 * thread. PostgreSQL rejects U+0000 in jsonb and text: it is stored as U+FFFD instead, so a
 * tool result with a NUL character cannot make a turn impossible to commit.
 */
public final class PgConversationStore implements ConversationStore {

  private static final Logger log = LoggerFactory.getLogger(PgConversationStore.class);

  private static final String HEADER = "SELECT tenant, title, system_prompt, tools, created_at, updated_at, version, "
    + "message_count, usage FROM conversations WHERE id = $1";
  private static final String MESSAGES = "SELECT seq, content FROM conversation_messages WHERE conversation_id = $1 ORDER BY seq";
  private static final String SUMMARY_COLUMNS = "id, tenant, title, created_at, updated_at, version, usage, input_tokens, "
    + "output_tokens, cache_creation_input_tokens, cache_read_input_tokens";

  /**
   * A turn as one statement (atomic without a transaction): the update matches only the expected
   * version (a concurrent writer's commit makes it match nothing, after waiting for its row lock);
   * the messages follow it with consecutive seq, and only if it matched. The usage merge runs
   * once (OFFSET 0 keeps it from being inlined into each column).
   */
  private static final String VERSION = "SELECT version FROM conversations WHERE id = $1";
  private static final String APPEND_TURN = "WITH turn AS (UPDATE conversations c SET (version, message_count, usage, "
    + "input_tokens, output_tokens, cache_creation_input_tokens, cache_read_input_tokens, title, updated_at) = "
    + "(SELECT c.version + 1, c.message_count + $3, m.u, agentbus_usage_long(m.u -> 'input_tokens'), "
    + "agentbus_usage_long(m.u -> 'output_tokens'), agentbus_usage_long(m.u -> 'cache_creation_input_tokens'), "
    + "agentbus_usage_long(m.u -> 'cache_read_input_tokens'), coalesce(c.title, $5), greatest(c.updated_at, $6) "
    + "FROM (SELECT agentbus_merge_usage(c.usage, $4::text::jsonb) AS u OFFSET 0) m) "
    + "WHERE c.id = $1 AND c.version = $2 RETURNING c.version, c.message_count, c.usage, c.title, c.updated_at), "
    + "added AS (INSERT INTO conversation_messages (conversation_id, seq, turn, content) "
    + "SELECT $1, turn.message_count - $3 + (t.ord - 1)::integer, turn.version, t.content::jsonb "
    + "FROM turn, unnest($7::text[]) WITH ORDINALITY AS t (content, ord)) "
    + "SELECT version, message_count, usage, title, updated_at FROM turn";

  private static final long RETRY_DELAY_MS = 25;

  private final Vertx vertx;
  private final String name;
  private final String uri;
  private final Pool pool;
  private final long timeoutMs;
  private final int poolSize;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TokenTable tokens = new PgTokenTable(this);

  private PgConversationStore(Vertx vertx, String name, String uri, Pool pool, long timeoutMs, int poolSize) {
    this.vertx = vertx;
    this.name = name;
    this.poolSize = poolSize;
    this.uri = uri;
    this.pool = pool;
    this.timeoutMs = timeoutMs;
  }

  /** Creates the pool, then the schema (if set), tables and migrations; fails naming the store when unreachable. */
  public static Future<ConversationStore> open(Vertx vertx, StoreOptions options) {
    String uri = options.getUri();
    if (uri == null) {
      return Future.failedFuture(new StoreException(Kind.INVALID, "conversation store postgres needs a 'uri'"));
    }
    String name = "conversation store postgres (" + PgUri.redact(uri) + ")";
    PgConnectOptions connect;
    try {
      connect = PgConnectOptions.fromUri(uri);
    } catch (RuntimeException e) {
      // the parser's message quotes the whole URI: never pass it on unscrubbed, never as a cause
      String why = e.getCause() != null ? e.getCause().getMessage() : e.getMessage();
      return Future.failedFuture(new StoreException(Kind.INVALID, name + ": invalid uri (" + PgUri.scrub(why, uri)
        + "); expected postgresql://user[:password]@host[:port]/database[?params]"));
    }
    Map<String, String> fromUri = connect.getProperties() == null ? Map.of() : connect.getProperties();
    Map<String, String> properties = new HashMap<>(PgConnectOptions.DEFAULT_PROPERTIES);
    properties.putAll(fromUri);
    if (!fromUri.containsKey("application_name")) {
      properties.put("application_name", "agentbus");
    }
    properties.put("statement_timeout", String.valueOf(options.getRequestTimeoutMs()));
    if (options.getSchema() != null) {
      properties.put("search_path", options.getSchema());
    }
    // cached per connection: a statement then costs one round trip, not a prepare and an execute
    connect.setProperties(properties).setReconnectAttempts(0).setCachePreparedStatements(true);
    NetClientOptions transport = new NetClientOptions()
      .setConnectTimeout((int) options.getConnectTimeoutMs())
      .setTcpKeepAlive(true);
    PoolOptions poolOptions = new PoolOptions()
      .setName("agentbus-store-" + System.identityHashCode(connect))
      .setMaxSize(options.getPoolSize())
      .setMaxWaitQueueSize(options.getMaxPendingRequests())
      // no pool-side wait timeout: in 5.0.7 a waiter it cancels breaks a later pool close (which
      // then never completes, nor does Vertx.close); each operation's deadline bounds the wait
      // instead, and a connection that arrives after it runs nothing (onConnection)
      .setConnectionTimeout(0)
      .setIdleTimeout((int) options.getRequestTimeoutMs())
      .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    Pool pool = PgBuilder.pool().with(poolOptions).with(transport).connectingTo(connect).using(vertx).build();
    PgConversationStore store = new PgConversationStore(vertx, name, uri, pool, options.getRequestTimeoutMs(), options.getPoolSize());
    return store.migrate(options.getSchema())
      .<ConversationStore>map(version -> {
        log.info("{} open (schema version {}, pool of {})", name, version, options.getPoolSize());
        return store;
      })
      .recover(err -> {
        // not awaited: a pool with a connection stuck in its handshake closes only when that socket does
        store.close();
        StoreException se = store.map("start", err);
        Kind kind = se.kind() == Kind.INVALID ? Kind.INVALID : Kind.UNAVAILABLE;
        return Future.failedFuture(new StoreException(kind, name + " unavailable at start: " + strip(name, se.getMessage()), se.getCause()));
      });
  }

  private static String strip(String name, String message) {
    return message.startsWith(name + ": ") ? message.substring(name.length() + 2) : message;
  }

  private Future<Integer> migrate(String schema) {
    return run("start", inTransaction("start", conn -> {
      // one migrating node at a time per database (the lock ends with the transaction)
      Future<?> first = conn.query("SELECT pg_advisory_xact_lock(hashtext('agentbus-schema-migrations'))").execute();
      if (schema != null) {
        first = first.compose(v -> conn.query("CREATE SCHEMA IF NOT EXISTS " + schema).execute());
      }
      return first
        .compose(v -> conn.query(Migrations.PG_VERSION_TABLE).execute())
        .compose(v -> conn.query("SELECT coalesce(max(version), 0) AS v FROM agentbus_schema_version").execute())
        .compose(rows -> {
          int current = rows.iterator().next().getInteger(0);
          if (current > Migrations.LATEST) {
            return Future.failedFuture(new StoreException(Kind.INVALID, "schema version " + current
              + " is newer than this build's (" + Migrations.LATEST + "): a newer Agentbus migrated this database"));
          }
          Future<?> chain = Future.succeededFuture();
          for (int v = current + 1; v <= Migrations.LATEST; v++) {
            int version = v;
            for (String sql : Migrations.PG.get(v - 1)) {
              chain = chain.compose(x -> conn.query(sql).execute());
            }
            chain = chain
              .compose(x -> conn.preparedQuery("INSERT INTO agentbus_schema_version (version) VALUES ($1)").execute(Tuple.of(version)))
              .onSuccess(x -> log.info("{}: schema migrated to version {}", name, version));
          }
          return chain.map(x -> Migrations.LATEST);
        });
    }));
  }

  @Override
  public String describe() {
    return name.substring("conversation store ".length());
  }

  @Override
  public Future<StoredConversation> insert(NewConversation conv) {
    Objects.requireNonNull(conv, "'conversation' cannot be null");
    String tools = Nul.json(conv.tools().encode());
    long now = System.currentTimeMillis();
    OffsetDateTime ts = time(now);
    Tuple params = Tuple.of(conv.id(), conv.tenant(), Nul.text(conv.title()), Nul.text(conv.system()), tools, ts);
    return run("insert " + conv.id(), onConnection("insert", conn -> conn.preparedQuery("INSERT INTO conversations (id, tenant, title, system_prompt, "
        + "tools, created_at, updated_at, version, message_count, usage) VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $6, 0, 0, "
        + "'{}') ON CONFLICT (id) DO NOTHING").execute(params)))
      .compose(rows -> rows.rowCount() == 0
        ? Future.failedFuture(new StoreException(Kind.CONFLICT, "conversation " + conv.id() + " already exists"))
        : Future.succeededFuture(new StoredConversation(conv.id(), conv.tenant(), conv.title(), conv.system(),
          conv.tools().copy(), now, now, 0, new JsonObject(), List.of())));
  }

  @Override
  public Future<StoredConversation> load(String id) {
    try {
      StoreSupport.checkId(id);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    return read("load " + id, onConnection("load", conn -> {
      // both sent at once on one connection: the header's snapshot precedes the messages'
      Future<RowSet<Row>> header = conn.preparedQuery(HEADER).execute(Tuple.of(id));
      Future<RowSet<Row>> messages = conn.preparedQuery(MESSAGES).execute(Tuple.of(id));
      return Future.all(header, messages).compose(done -> assemble(conn, id, header.result(), messages.result()));
    }));
  }

  @Override
  public Future<Long> version(String id) {
    try {
      StoreSupport.checkId(id);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    return read("version " + id, onConnection("version", conn -> conn.preparedQuery(VERSION).execute(Tuple.of(id))
      .compose(rows -> rows.size() == 0 ? Future.failedFuture(StoreSupport.notFound(id))
        : Future.succeededFuture(rows.iterator().next().getLong(0)))));
  }

  private Future<StoredConversation> assemble(SqlConnection conn, String id, RowSet<Row> header, RowSet<Row> messageRows) {
    if (header.size() == 0) {
      return Future.failedFuture(StoreSupport.notFound(id));
    }
    Row h = header.iterator().next();
    int count = h.getInteger("message_count");
    List<JsonObject> messages = new ArrayList<>(count);
    for (Row r : messageRows) {
      int seq = r.getInteger(0);
      if (seq >= count) {
        break; // committed after the header was read
      }
      if (seq != messages.size()) {
        return Future.failedFuture(StoreSupport.corrupt(name, id, "message " + messages.size() + " is missing", null));
      }
      messages.add(object(id, "message " + seq, r.getValue(1)));
    }
    if (messages.size() != count) {
      // deleted between the two reads, or rows missing
      return conn.preparedQuery("SELECT 1 FROM conversations WHERE id = $1").execute(Tuple.of(id))
        .compose(rows -> Future.failedFuture(rows.size() == 0 ? StoreSupport.notFound(id)
          : StoreSupport.corrupt(name, id, count + " messages recorded, " + messages.size() + " found", null)));
    }
    return Future.succeededFuture(new StoredConversation(id, h.getString("tenant"), h.getString("title"),
      h.getString("system_prompt"), object(id, "its tool selection", h.getValue("tools")), millis(h, "created_at"),
      millis(h, "updated_at"), h.getLong("version"), object(id, "its usage", h.getValue("usage")), List.copyOf(messages)));
  }

  private JsonObject object(String id, String what, Object value) {
    if (value instanceof JsonObject o) {
      return o;
    }
    throw StoreSupport.corrupt(name, id, what + " is not a JSON object", null);
  }

  @Override
  public Future<TurnCommit> appendTurn(String id, long expectedVersion, List<JsonObject> messages, JsonObject usage) {
    String[] encoded = new String[messages == null ? 0 : messages.size()];
    String turnUsage;
    try {
      StoreSupport.checkTurn(id, expectedVersion, messages);
      for (int i = 0; i < encoded.length; i++) {
        encoded[i] = Nul.json(messages.get(i).encode());
      }
      turnUsage = usage == null ? null : Nul.json(usage.encode());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
    String title = Nul.text(StoreSupport.title(messages));
    Tuple params = Tuple.of(id, expectedVersion, encoded.length, turnUsage, title, time(System.currentTimeMillis()))
      .addValue(encoded);
    return run("appendTurn " + id, onConnection("appendTurn", conn -> conn.preparedQuery(APPEND_TURN).execute(params)
      .compose(rows -> {
        if (rows.size() == 0) {
          return failedTurn(conn, id, expectedVersion);
        }
        Row r = rows.iterator().next();
        return Future.succeededFuture(new TurnCommit(r.getLong("version"), millis(r, "updated_at"),
          r.getInteger("message_count"), object(id, "its usage", r.getValue("usage")), r.getString("title")));
      })));
  }

  /** Why a turn matched no row: the conversation is gone, or at another version. */
  private Future<TurnCommit> failedTurn(SqlConnection conn, String id, long expectedVersion) {
    return conn.preparedQuery("SELECT version FROM conversations WHERE id = $1").execute(Tuple.of(id))
      .compose(rows -> Future.failedFuture(rows.size() == 0 ? StoreSupport.notFound(id)
        : StoreSupport.conflict(id, expectedVersion, rows.iterator().next().getLong(0))));
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
    Tuple params = Tuple.tuple();
    StringBuilder sql = new StringBuilder("SELECT ").append(SUMMARY_COLUMNS).append(" FROM conversations WHERE ");
    if (tenant == null) {
      sql.append("tenant IS NULL");
    } else {
      params.addValue(tenant);
      sql.append("tenant = $").append(params.size());
    }
    if (after != null) {
      params.addValue(time(after.updatedAt())).addValue(after.id());
      sql.append(" AND (updated_at, id) < ($").append(params.size() - 1).append(", $").append(params.size()).append(")");
    }
    params.addValue(limit + 1);
    sql.append(" ORDER BY updated_at DESC, id DESC LIMIT $").append(params.size());
    return read("list", onConnection("list", conn -> conn.preparedQuery(sql.toString()).execute(params))).map(rows -> {
      List<ConversationSummary> items = new ArrayList<>();
      boolean more = false;
      for (Row r : rows) {
        if (items.size() == limit) {
          more = true;
          break;
        }
        String id = r.getString("id");
        items.add(new ConversationSummary(id, r.getString("tenant"), r.getString("title"), millis(r, "created_at"),
          millis(r, "updated_at"), listedUsage(id, r), r.getLong("version")));
      }
      ConversationSummary last = more ? items.get(items.size() - 1) : null;
      return new ConversationPage(items, last == null ? null : StoreSupport.encodeCursor(last.updatedAt(), last.id()));
    });
  }

  /** A listing survives one damaged usage: that item shows the usage columns instead. */
  private JsonObject listedUsage(String id, Row r) {
    if (r.getValue("usage") instanceof JsonObject usage) {
      return usage;
    }
    log.warn("{}: conversation {} has a usage that is not a JSON object; listed with its token columns", name, id);
    JsonObject usage = new JsonObject();
    for (String column : StoreSupport.USAGE_COLUMNS) {
      usage.put(column, r.getLong(column));
    }
    return usage;
  }

  @Override
  public Future<Void> delete(String id) {
    try {
      StoreSupport.checkId(id);
    } catch (StoreException e) {
      return Future.failedFuture(e);
    }
    // the messages go with it (ON DELETE CASCADE), in the same statement
    return run("delete " + id, onConnection("delete", conn -> conn.preparedQuery("DELETE FROM conversations WHERE id = $1")
      .execute(Tuple.of(id))))
      .compose(rows -> rows.rowCount() == 0 ? Future.failedFuture(StoreSupport.notFound(id)) : Future.succeededFuture());
  }

  @Override
  public Future<JsonObject> usageTotals(String tenant) {
    String sql = "SELECT count(*)::bigint, coalesce(sum(version), 0)::bigint, coalesce(sum(input_tokens), 0)::bigint, "
      + "coalesce(sum(output_tokens), 0)::bigint, coalesce(sum(cache_creation_input_tokens), 0)::bigint, "
      + "coalesce(sum(cache_read_input_tokens), 0)::bigint FROM conversations WHERE "
      + (tenant == null ? "tenant IS NULL" : "tenant = $1");
    Tuple params = tenant == null ? Tuple.tuple() : Tuple.of(tenant);
    return read("usageTotals", onConnection("usageTotals", conn -> conn.preparedQuery(sql).execute(params))).map(rows -> {
      Row r = rows.iterator().next();
      long[] columns = new long[StoreSupport.USAGE_COLUMNS.size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = r.getLong(2 + i);
      }
      return StoreSupport.totals(r.getLong(0), r.getLong(1), columns);
    });
  }

  @Override
  public Optional<TokenTable> tokenTable() {
    return Optional.of(tokens);
  }

  /** One read statement on a pooled connection, under the deadline, retried after a lost connection. */
  Future<RowSet<Row>> readStatement(String op, String sql, Tuple params) {
    return read(op, onConnection(op, conn -> conn.preparedQuery(sql).execute(params)));
  }

  /** One write statement on a pooled connection, under the deadline, never retried. */
  Future<RowSet<Row>> writeStatement(String op, String sql, Tuple params) {
    return run(op, onConnection(op, conn -> conn.preparedQuery(sql).execute(params)));
  }

  @Override
  public Future<Void> close() {
    if (!closed.compareAndSet(false, true)) {
      return Future.succeededFuture();
    }
    // bounded: a connection stuck in its handshake holds the pool's close until its socket times out
    return pool.close().timeout(timeoutMs, TimeUnit.MILLISECONDS).otherwise(err -> {
      log.warn("{}: the pool did not close within {} ms ({}); its sockets close on their own", name, timeoutMs, err.getMessage());
      return null;
    });
  }

  /**
   * @return an attempt that runs {@code work} on a pooled connection, unless the connection came
   *     after the deadline (the caller has had its TIMEOUT: work it never saw start must not run)
   */
  private <T> Supplier<Future<T>> onConnection(String op, Function<SqlConnection, Future<T>> work) {
    return () -> {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      return pool.withConnection(conn -> inTime(op, deadline).compose(v -> work.apply(conn)));
    };
  }

  /** Like {@link #onConnection} in a transaction: committed when {@code work} succeeds, else rolled back. */
  private <T> Supplier<Future<T>> inTransaction(String op, Function<SqlConnection, Future<T>> work) {
    return () -> {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
      return pool.withTransaction(conn -> inTime(op, deadline).compose(v -> work.apply(conn)));
    };
  }

  private Future<Void> inTime(String op, long deadline) {
    if (System.nanoTime() - deadline > 0) {
      return Future.failedFuture(new StoreException(Kind.TIMEOUT,
        name + ": " + op + " waited " + timeoutMs + " ms for a connection and was not run"));
    }
    return Future.succeededFuture();
  }

  /**
   * A read: retried on another connection when the one it used turned out dead (the server
   * restarted or dropped it), at most once per pooled connection.
   */
  private <T> Future<T> read(String op, Supplier<Future<T>> attempt) {
    return read(op, attempt, poolSize);
  }

  private <T> Future<T> read(String op, Supplier<Future<T>> attempt, int retries) {
    return run(op, attempt).recover(err -> {
      if (retries > 0 && !closed.get() && err instanceof StoreException se && se.kind() == Kind.UNAVAILABLE
        && PgErrors.connectionLost(se.getCause())) {
        log.debug("{}: {} lost its connection ({}); retrying", name, op, se.getCause().getMessage());
        // a moment later: the pool learns of the other dead connections from their close events
        Promise<T> retried = Promise.promise();
        vertx.setTimer(RETRY_DELAY_MS, t -> read(op, attempt, retries - 1).onComplete(retried));
        return retried.future();
      }
      return Future.failedFuture(err);
    });
  }

  /** Runs one attempt under the deadline; every failure comes out as a StoreException naming the store. */
  private <T> Future<T> run(String op, Supplier<Future<T>> attempt) {
    if (closed.get()) {
      return Future.failedFuture(new StoreException(Kind.UNAVAILABLE, name + " is closed (" + op + ")"));
    }
    Future<T> f;
    try {
      f = attempt.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return f.timeout(timeoutMs, TimeUnit.MILLISECONDS).recover(err -> Future.failedFuture(map(op, err)));
  }

  private StoreException map(String op, Throwable err) {
    return PgErrors.map(name, op, uri, timeoutMs, err);
  }

  private static OffsetDateTime time(long millis) {
    return OffsetDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC);
  }

  private static long millis(Row row, String column) {
    return row.getOffsetDateTime(column).toInstant().toEpochMilli();
  }
}
