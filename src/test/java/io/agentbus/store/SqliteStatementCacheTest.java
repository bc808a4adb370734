package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoreException.Kind;
import io.agentbus.store.impl.SqliteConversationStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code sqlite} store compiles each statement once per connection: repeated operations
 * reuse them, one the driver finalized after an error is compiled again, and a reopened
 * connection compiles its own.
 */
class SqliteStatementCacheTest {

  @TempDir
  Path dir;

  private Vertx vertx;
  private SqliteConversationStore store;

  private Path file() {
    return dir.resolve("agentbus.db");
  }

  @BeforeEach
  void open() throws Exception {
    vertx = Vertx.vertx();
    store = (SqliteConversationStore) await(ConversationStore.create(vertx,
      new StoreOptions().setType(StoreOptions.Type.SQLITE).setPath(file().toString())));
  }

  @AfterEach
  void close() throws Exception {
    try {
      store.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void repeatedOperationsReuseTheirStatements() throws Exception {
    everyOperation();
    long compiled = store.statementsPrepared();
    assertTrue(compiled > 10, "compiled " + compiled);
    for (int i = 0; i < 20; i++) {
      everyOperation();
    }
    // a write that commits alone uses no savepoint, so the group's SAVEPOINT, RELEASE and
    // ROLLBACK TO are compiled the first time writes happen to queue together (once each)
    long more = store.statementsPrepared() - compiled;
    assertTrue(more <= 3, more + " statements compiled again over 20 rounds of every operation");
  }

  @Test
  void statementsThatFailedInTheDriverAreCompiledAgain() throws Exception {
    everyOperation();
    long compiled = store.statementsPrepared();
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      // an SQL error (not a constraint) makes sqlite-jdbc finalize the UPDATE statement of appendTurn
      s.execute("CREATE TRIGGER explode BEFORE UPDATE ON conversations WHEN NEW.title = 'explode' "
        + "BEGIN SELECT json('not json'); END");
    }
    String bad = inserted();
    String good = inserted();
    Future<TurnCommit> failing = store.appendTurn(bad, 0, List.of(user("explode")), null);
    Future<TurnCommit> next = store.appendTurn(good, 0, List.of(user("fine")), null);
    StoreException e = failure(failing);
    assertEquals(Kind.FAILED, e.kind(), e.toString());
    assertTrue(e.getMessage().contains("malformed JSON"), e.getMessage());
    assertEquals(1, await(next).version());
    assertEquals(0, await(store.load(bad)).version());
    assertEquals(List.of(user("fine")), await(store.load(good)).messages());
    long recompiled = store.statementsPrepared();
    assertTrue(recompiled > compiled, "the failed write's statements are compiled again");
    everyOperation();
    assertEquals(recompiled, store.statementsPrepared());
  }

  @Test
  void aReopenedConnectionCompilesItsOwnStatementsAndTheStoreKeepsWorking() throws Exception {
    String id = inserted();
    await(store.appendTurn(id, 0, List.of(user("before")), usage(3)));
    everyOperation();
    try (Connection c = jdbc(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("PRAGMA wal_checkpoint(TRUNCATE)")) {
      rs.next();
      assertEquals(0, rs.getInt(1), "the checkpoint was not blocked");
    }
    // the file stops being a database: the store's connection fails and is dropped
    byte[] header = new byte[16];
    try (RandomAccessFile raf = new RandomAccessFile(file().toFile(), "rw")) {
      raf.readFully(header);
      raf.seek(0);
      raf.write("not a database!!".getBytes(StandardCharsets.US_ASCII));
    }
    StoreException broken = failure(store.load(id));
    assertEquals(Kind.UNAVAILABLE, broken.kind(), broken.toString());
    try (RandomAccessFile raf = new RandomAccessFile(file().toFile(), "rw")) {
      raf.write(header);
    }

    long beforeReopen = store.statementsPrepared();
    StoredConversation loaded = await(store.load(id));
    assertEquals(List.of(user("before")), loaded.messages());
    assertEquals(2, await(store.appendTurn(id, 1, List.of(user("after")), usage(4))).version());
    everyOperation();
    long reopened = store.statementsPrepared();
    assertTrue(reopened > beforeReopen, "the new connection compiles its statements");
    everyOperation();
    assertEquals(reopened, store.statementsPrepared());
    StoredConversation after = await(store.load(id));
    assertEquals(List.of(user("before"), user("after")), after.messages());
    assertEquals(7L, after.usage().getLong("input_tokens"));
  }

  /** Runs each operation of the store, its failures and a group commit, checking each outcome. */
  private void everyOperation() throws Exception {
    String id = "c-" + UUID.randomUUID();
    await(store.insert(new NewConversation(id, "acme", null, null, new JsonObject().put("allow", "x"))));
    assertEquals(Kind.CONFLICT, failure(store.insert(NewConversation.of(id))).kind());
    assertEquals(1, await(store.appendTurn(id, 0, List.of(user("hi"), user("there")), usage(5))).version());
    TurnCommit second = await(store.appendTurn(id, 1, List.of(user("again")), null));
    assertEquals(2, second.version());
    assertEquals(5L, second.usage().getLong("input_tokens"));
    assertEquals(Kind.CONFLICT, failure(store.appendTurn(id, 0, List.of(user("stale")), null)).kind());
    StoredConversation loaded = await(store.load(id));
    assertEquals(List.of(user("hi"), user("there"), user("again")), loaded.messages());
    assertEquals("hi", loaded.title());

    List<String> others = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      others.add(await(store.insert(new NewConversation("c-" + UUID.randomUUID(), i % 2 == 0 ? "acme" : null, null, null,
        null))).id());
    }
    // queued together: one group, one savepoint each, and the stale one fails alone
    List<Future<TurnCommit>> commits = new ArrayList<>();
    for (String other : others) {
      commits.add(store.appendTurn(other, 0, List.of(user("x")), usage(1)));
    }
    Future<TurnCommit> stale = store.appendTurn(others.get(0), 0, List.of(user("y")), null);
    for (Future<TurnCommit> f : commits) {
      assertEquals(1, await(f).version());
    }
    assertEquals(Kind.CONFLICT, failure(stale).kind());

    for (String tenant : new String[] {"acme", null}) {
      ConversationPage page = await(store.list(tenant, 1, null));
      assertEquals(1, page.items().size());
      assertEquals(1, await(store.list(tenant, 1, page.nextCursor())).items().size());
    }
    assertTrue(await(store.usageTotals("acme")).getLong("input_tokens") >= 5);
    await(store.usageTotals(null));

    await(store.delete(id));
    assertEquals(Kind.NOT_FOUND, failure(store.load(id)).kind());
    assertEquals(Kind.NOT_FOUND, failure(store.delete(id)).kind());
    for (String other : others) {
      await(store.delete(other));
    }
  }

  private String inserted() throws Exception {
    return await(store.insert(NewConversation.of("c-" + UUID.randomUUID()))).id();
  }

  private Connection jdbc() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  private static JsonObject user(String text) {
    return new JsonObject().put("role", "user").put("content", text);
  }

  private static JsonObject usage(long in) {
    return new JsonObject().put("input_tokens", in).put("output_tokens", 1);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  private static StoreException failure(Future<?> f) throws Exception {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (StoreException e) {
      return e;
    }
    throw new AssertionError("the operation succeeded");
  }
}
