package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoreException.Kind;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract on the {@code postgres} store against the real server (see {@link PgTestSupport}),
 * each test in a schema of its own, dropped afterwards; plus the server going away mid-run.
 */
class PgConversationStoreTest extends ConversationStoreContract {

  private String schema;
  private String appName;

  @Override
  protected StoreOptions options() {
    PgTestSupport.requireServer();
    if (schema == null) {
      schema = PgTestSupport.newSchema();
      appName = "agentbus-test-" + schema.substring("agentbus_test_".length());
    }
    return new StoreOptions().setType(StoreOptions.Type.POSTGRES)
      .setUri(PgTestSupport.uriWithApplicationName(appName))
      .setSchema(schema)
      .setPoolSize(4)
      .setRequestTimeoutMs(10_000);
  }

  @Override
  protected boolean durable() {
    return true;
  }

  @Override
  protected void afterStoreClosed() throws Exception {
    if (schema != null) {
      PgTestSupport.dropSchema(schema);
    }
  }

  @Override
  protected void corruptMessage(String id, int seq) throws Exception {
    // jsonb holds only valid JSON: a hand edit can still leave something that is not a message
    RowSet<Row> rows = PgTestSupport.sql(vertx, "UPDATE " + schema + ".conversation_messages SET content = '\"oops\"'::jsonb "
      + "WHERE conversation_id = $1 AND seq = $2", id, seq);
    assertEquals(1, rows.rowCount());
  }

  @Override
  protected void installFailingTrigger() throws Exception {
    PgTestSupport.sql(vertx, "CREATE FUNCTION " + schema + ".explode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      + "IF NEW.content->>'role' = 'explode' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$");
    PgTestSupport.sql(vertx, "CREATE TRIGGER explode BEFORE INSERT ON " + schema + ".conversation_messages "
      + "FOR EACH ROW EXECUTE FUNCTION " + schema + ".explode()");
  }

  private int terminateStoreConnections() throws Exception {
    RowSet<Row> rows = PgTestSupport.sql(vertx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      + "WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1", appName);
    return rows.size();
  }

  @Test
  void theSchemaIsVersionedJsonbAndIndexedForListing() throws Exception {
    StoredConversation c = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("hi")), null));
    second(); // a second start applies nothing twice
    RowSet<Row> versions = PgTestSupport.sql(vertx, "SELECT version FROM " + schema + ".agentbus_schema_version ORDER BY version");
    List<Integer> applied = new ArrayList<>();
    versions.forEach(r -> applied.add(r.getInteger(0)));
    assertEquals(List.of(1, 2, 3), applied);
    RowSet<Row> types = PgTestSupport.sql(vertx, "SELECT jsonb_typeof(content) FROM " + schema + ".conversation_messages");
    assertEquals("object", types.iterator().next().getString(0));
    RowSet<Row> index = PgTestSupport.sql(vertx, "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2",
      schema, "conversations_by_tenant");
    String def = index.iterator().next().getString(0);
    assertTrue(def.contains("(tenant, updated_at DESC, id DESC)"), def);
    assertTrue(store.describe().startsWith("postgres (postgresql://postgres@"), store.describe());
  }

  @Test
  void aVersion1DatabaseIsMigratedToVersion2KeepingItsData() throws Exception {
    StoredConversation c = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("kept"), assistant("ok")), usage(3, 4)));
    await(store.close());
    // what a version 1 build left: migration 2 only added the turn functions
    PgTestSupport.sql(vertx, "DROP FUNCTION " + schema + ".agentbus_merge_usage(jsonb, jsonb)");
    PgTestSupport.sql(vertx, "DROP FUNCTION " + schema + ".agentbus_usage_long(jsonb)");
    PgTestSupport.sql(vertx, "DROP TABLE " + schema + ".oauth_tokens");
    PgTestSupport.sql(vertx, "DELETE FROM " + schema + ".agentbus_schema_version WHERE version > 1");

    store = await(ConversationStore.create(vertx, options()));
    RowSet<Row> versions = PgTestSupport.sql(vertx, "SELECT version FROM " + schema + ".agentbus_schema_version ORDER BY version");
    List<Integer> applied = new ArrayList<>();
    versions.forEach(r -> applied.add(r.getInteger(0)));
    assertEquals(List.of(1, 2, 3), applied);
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(List.of(user("kept"), assistant("ok")), loaded.messages());
    assertEquals(3L, loaded.usage().getLong("input_tokens"));
    assertEquals("kept", loaded.title());
    TurnCommit next = await(store.appendTurn(c.id(), 1, List.of(user("more")), usage(2, 1)));
    assertEquals(2, next.version());
    assertEquals(3, next.messageCount());
    assertEquals(5L, next.usage().getLong("input_tokens"));
    assertEquals(5L, await(store.usageTotals("acme")).getLong("input_tokens"));
  }

  @Test
  void theUsageMergesInTheDatabaseExactlyAsInJava() throws Exception {
    ConversationStore memory = await(ConversationStore.create(vertx, new StoreOptions().setType(StoreOptions.Type.MEMORY)));
    try {
      mergeLikeJava(memory);
    } finally {
      memory.close().await(10, TimeUnit.SECONDS);
    }
  }

  private void mergeLikeJava(ConversationStore memory) throws Exception {
    String tenant = "merge-" + newId();
    StoredConversation c = await(store.insert(new NewConversation(newId(), tenant, null, null, null)));
    await(memory.insert(new NewConversation(c.id(), tenant, null, null, null)));
    List<JsonObject> turns = new ArrayList<>();
    turns.add(new JsonObject().put("input_tokens", 100).put("output_tokens", 20L).put("cost_usd", 0.1).put("model", "a")
      .put("server_tool_use", new JsonObject().put("web_search_requests", 1).put("detail", new JsonObject().put("ms", 1.5)))
      .put("tags", new JsonArray().add("x")).put("cached", true).put("ratio", 1.5));
    turns.add(new JsonObject().put("input_tokens", 50).put("cost_usd", 0.2).put("model", "b")
      .put("server_tool_use", new JsonObject().put("web_search_requests", 2).put("fetches", 3)
        .put("detail", new JsonObject().put("ms", 2.25).put("note", "n")))
      .put("tags", new JsonArray().add("y").add(new JsonObject().put("z", 1))).put("cached", null).put("extra", new JsonObject().put("a", 1))
      .put("ratio", 1.5));
    // a decimal onto an integer, an integer onto a decimal, a string onto an object, a number onto an object
    turns.add(new JsonObject().put("input_tokens", 2.5).put("cost_usd", 1).put("server_tool_use", "flat").put("extra", 7)
      .put("output_tokens", 9_007_199_254_740_993L).put("ratio", -0.25).put("cache_read_input_tokens", "n/a"));
    turns.add(null);
    turns.add(new JsonObject().put("input_tokens", 1).put("server_tool_use", new JsonObject().put("again", 1))
      .put("cache_creation_input_tokens", -3.75));
    long version = 0;
    for (JsonObject turn : turns) {
      TurnCommit pg = await(store.appendTurn(c.id(), version, List.of(), turn == null ? null : turn.copy()));
      TurnCommit java = await(memory.appendTurn(c.id(), version, List.of(), turn == null ? null : turn.copy()));
      version++;
      assertSameJson(java.usage(), pg.usage(), "usage after turn " + version);
      assertSameJson(java.usage(), await(store.load(c.id())).usage(), "loaded usage after turn " + version);
      assertEquals(await(memory.usageTotals(tenant)), await(store.usageTotals(tenant)), "token columns after turn " + version);
    }
    JsonObject last = await(store.load(c.id())).usage();
    assertEquals(153.5, last.getDouble("input_tokens"));
    assertEquals(0.30000000000000004 + 1, last.getDouble("cost_usd"));
    assertEquals(9_007_199_254_741_013L, last.getLong("output_tokens"));
    assertEquals(new JsonObject().put("again", 1), last.getJsonObject("server_tool_use"));
  }

  /** Same JSON: same keys and values, numbers equal and both integers or both decimals. */
  private static void assertSameJson(Object expected, Object actual, String where) {
    if (expected instanceof JsonObject e && actual instanceof JsonObject a) {
      assertEquals(e.fieldNames(), a.fieldNames(), where);
      e.fieldNames().forEach(k -> assertSameJson(e.getValue(k), a.getValue(k), where + "." + k));
    } else if (expected instanceof JsonArray e && actual instanceof JsonArray a) {
      assertEquals(e.size(), a.size(), where);
      for (int i = 0; i < e.size(); i++) {
        assertSameJson(e.getValue(i), a.getValue(i), where + "[" + i + "]");
      }
    } else if (expected instanceof Number e && actual instanceof Number a) {
      assertEquals(integral(e), integral(a), where + ": " + e + " vs " + a);
      assertEquals(0, new BigDecimal(e.toString()).compareTo(new BigDecimal(a.toString())), where + ": " + e + " vs " + a);
    } else {
      assertEquals(expected, actual, where);
    }
  }

  private static boolean integral(Number n) {
    return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte || n instanceof BigInteger;
  }

  @Test
  void aDatabaseFromANewerBuildIsRefused() throws Exception {
    PgTestSupport.sql(vertx, "INSERT INTO " + schema + ".agentbus_schema_version (version) VALUES (99)");
    StoreException e = failure(ConversationStore.create(vertx, options()));
    assertEquals(Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("schema version 99 is newer"), e.getMessage());
  }

  @Test
  void thePoolRecoversWhenTheServerDropsItsConnections() throws Exception {
    StoredConversation c = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("before"), assistant("ok")), null));
    // several at once, so that the pool holds more than one connection
    List<Future<StoredConversation>> warm = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      warm.add(store.load(c.id()));
    }
    Future.all(warm).await(30, TimeUnit.SECONDS);
    assertTrue(terminateStoreConnections() >= 1, "no store connection was found to terminate");

    // the first operations may meet a dead connection: they fail as UNAVAILABLE or succeed on a new one
    for (Future<?> f : List.of(store.load(c.id()), store.list("acme", 10, null), store.usageTotals("acme"))) {
      try {
        f.await(30, TimeUnit.SECONDS);
      } catch (StoreException e) {
        assertEquals(Kind.UNAVAILABLE, e.kind(), e.toString());
        assertTrue(e.getMessage().contains("conversation store postgres"), e.getMessage());
      }
    }
    // then, once the pool has seen the closes, the store works again, reads and writes: a
    // read may still meet a dead connection, so read until one succeeds (bounded)
    StoredConversation reloaded = null;
    for (int attempt = 0; attempt < 20 && reloaded == null; attempt++) {
      try {
        reloaded = await(store.load(c.id()));
      } catch (StoreException e) {
        assertEquals(Kind.UNAVAILABLE, e.kind(), e.toString());
      }
    }
    assertEquals(2, reloaded == null ? -1 : reloaded.messages().size(), "the store did not recover");
    assertEquals(2, await(store.appendTurn(c.id(), 1, List.of(user("after"), assistant("ok")), null)).version());
    assertEquals(4, await(store.load(c.id())).messages().size());

    // a write in flight when its connection dies fails as UNAVAILABLE, or commits whole
    Future<TurnCommit> inFlight = store.appendTurn(c.id(), 2, List.of(user("racing")), null);
    terminateStoreConnections();
    try {
      inFlight.await(30, TimeUnit.SECONDS);
    } catch (StoreException e) {
      assertEquals(Kind.UNAVAILABLE, e.kind(), e.toString());
    }
    StoredConversation now = await(store.load(c.id()));
    assertTrue(now.version() == 2 && now.messages().size() == 4 || now.version() == 3 && now.messages().size() == 5,
      "version " + now.version() + " with " + now.messages().size() + " messages");
  }

  @Test
  void aStatementPastItsDeadlineIsATimeout() throws Exception {
    await(store.close());
    store = await(ConversationStore.create(vertx, options().setRequestTimeoutMs(500)));
    StoredConversation c = insert(null);
    // another session holds the row lock: the turn waits for it until statement_timeout
    PgTestSupport.sql(vertx, "SELECT 1"); // warm
    io.vertx.pgclient.PgConnection locker = io.vertx.pgclient.PgConnection.connect(vertx,
      io.vertx.pgclient.PgConnectOptions.fromUri(PgTestSupport.uri())).await(10, TimeUnit.SECONDS);
    try {
      locker.query("BEGIN").execute().await(10, TimeUnit.SECONDS);
      locker.query("SELECT * FROM " + schema + ".conversations WHERE id = '" + c.id() + "' FOR UPDATE").execute()
        .await(10, TimeUnit.SECONDS);
      StoreException e = failure(store.appendTurn(c.id(), 0, List.of(user("waits")), null));
      assertEquals(Kind.TIMEOUT, e.kind(), e.toString());
      locker.query("ROLLBACK").execute().await(10, TimeUnit.SECONDS);
    } finally {
      locker.close().await(10, TimeUnit.SECONDS);
    }
    // TIMEOUT means "unknown": the waiting statement may still have committed once the lock
    // went, so the caller reloads and commits on top of what is there
    long version = await(store.load(c.id())).version();
    assertTrue(version == 0 || version == 1, "version " + version);
    assertEquals(version + 1, await(store.appendTurn(c.id(), version, List.of(user("then")), null)).version());
  }
}
