package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoreException.Kind;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the {@code sqlite} store, plus what only a file has. */
class SqliteConversationStoreTest extends ConversationStoreContract {

  @TempDir
  Path dir;

  private Path file() {
    return dir.resolve("nested/deeper/agentbus.db");
  }

  @Override
  protected StoreOptions options() {
    return new StoreOptions().setType(StoreOptions.Type.SQLITE).setPath(file().toString());
  }

  @Override
  protected boolean durable() {
    return true;
  }

  private Connection jdbc() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  @Override
  protected void corruptMessage(String id, int seq) throws Exception {
    try (Connection c = jdbc(); PreparedStatement ps = c.prepareStatement(
      "UPDATE conversation_messages SET content = '{\"role\": \"user\", oops' WHERE conversation_id = ? AND seq = ?")) {
      ps.setString(1, id);
      ps.setInt(2, seq);
      assertEquals(1, ps.executeUpdate());
    }
  }

  @Override
  protected void installFailingTrigger() throws Exception {
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      s.execute("CREATE TRIGGER explode BEFORE INSERT ON conversation_messages "
        + "WHEN json_extract(NEW.content, '$.role') = 'explode' BEGIN SELECT RAISE(ABORT, 'boom'); END");
    }
  }

  @Test
  void theFileAndItsParentDirectoriesAreCreatedInWalMode() throws Exception {
    assertTrue(Files.isRegularFile(file()));
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("PRAGMA journal_mode")) {
        rs.next();
        assertEquals("wal", rs.getString(1));
      }
      try (ResultSet rs = s.executeQuery("SELECT version FROM agentbus_schema_version ORDER BY version")) {
        assertTrue(rs.next());
        assertEquals(1, rs.getInt(1));
        assertTrue(rs.next());
        assertEquals(2, rs.getInt(1));
        assertTrue(rs.next());
        assertEquals(3, rs.getInt(1));
        assertFalse(rs.next());
      }
    }
    assertEquals("sqlite (" + file() + ")", store.describe());
  }

  @Test
  void aPathThatCannotBeOpenedFailsCreateNamingTheStore() throws Exception {
    Path blocker = dir.resolve("a-file");
    Files.writeString(blocker, "not a directory");
    String path = blocker.resolve("sub/agentbus.db").toString();
    StoreException e = failure(ConversationStore.create(vertx, new StoreOptions().setPath(path)));
    assertEquals(Kind.UNAVAILABLE, e.kind());
    assertTrue(e.getMessage().startsWith("conversation store sqlite (" + path + ") cannot be opened"), e.getMessage());
  }

  @Test
  void aFileThatIsNotADatabaseFailsCreate() throws Exception {
    Path junk = dir.resolve("junk.db");
    Files.write(junk, "this is not an SQLite database, just text that is long enough to look like a header....".repeat(20)
      .getBytes(StandardCharsets.UTF_8));
    StoreException e = failure(ConversationStore.create(vertx, new StoreOptions().setPath(junk.toString())));
    assertEquals(Kind.UNAVAILABLE, e.kind());
    assertTrue(e.getMessage().contains("junk.db") && e.getMessage().contains("not a database"), e.getMessage());
  }

  @Test
  void aFileFromANewerBuildIsRefused() throws Exception {
    try (Connection c = jdbc(); Statement s = c.createStatement()) {
      s.execute("INSERT INTO agentbus_schema_version (version, applied_at) VALUES (99, 0)");
    }
    StoreException e = failure(ConversationStore.create(vertx, options()));
    assertEquals(Kind.INVALID, e.kind());
    assertTrue(e.getMessage().contains("schema version 99 is newer"), e.getMessage());
  }

  @Test
  void aLockedFileFailsAsUnavailableDeadlinesHoldAndTheQueueIsBounded() throws Exception {
    await(store.close());
    store = await(ConversationStore.create(vertx, options().setRequestTimeoutMs(1_000).setMaxPendingRequests(2)));
    StoredConversation c = insert(null);
    StoredConversation c2 = insert(null);
    try (Connection locker = jdbc(); Statement s = locker.createStatement()) {
      s.execute("BEGIN EXCLUSIVE"); // another process holds the write lock
      // A waits on the lock (busy timeout 750 ms); B then waits on it past its deadline;
      // C, queued behind them, reaches its deadline without having run; D finds the queue full
      Future<TurnCommit> a = store.appendTurn(c.id(), 0, List.of(user("A")), null);
      awaitWorkerRunningAWrite();
      Future<TurnCommit> b = store.appendTurn(c2.id(), 0, List.of(user("B")), null);
      Future<StoredConversation> cLoad = store.load(c.id());
      StoreException full = failure(store.load(c.id()));
      assertEquals(Kind.UNAVAILABLE, full.kind());
      assertTrue(full.getMessage().contains("2 requests already waiting"), full.getMessage());
      StoreException locked = failure(a);
      assertEquals(Kind.UNAVAILABLE, locked.kind(), locked.toString());
      assertTrue(locked.getMessage().contains("locked"), locked.getMessage());
      StoreException slow = failure(b);
      assertEquals(Kind.TIMEOUT, slow.kind(), slow.toString());
      assertTrue(slow.getMessage().contains("did not finish within 1000 ms"), slow.getMessage());
      StoreException late = failure(cLoad);
      assertEquals(Kind.TIMEOUT, late.kind(), late.toString());
      assertTrue(late.getMessage().contains("was not run"), late.getMessage());
      s.execute("ROLLBACK");
    }
    // the lock is gone: the store works again; A never committed
    assertEquals(1, await(store.appendTurn(c.id(), 0, List.of(user("after")), null)).version());
    assertEquals(List.of(user("after")), await(store.load(c.id())).messages());
    // B timed out while running: it may or may not have committed, but never in part
    StoredConversation bState = await(store.load(c2.id()));
    assertEquals(bState.version() == 0 ? List.of() : List.of(user("B")), bState.messages());
  }

  @Test
  void closingFailsTheWaitingRequests() throws Exception {
    StoredConversation c = insert(null);
    List<Future<StoredConversation>> loads = new ArrayList<>();
    try (Connection locker = jdbc(); Statement s = locker.createStatement()) {
      s.execute("BEGIN EXCLUSIVE");
      Future<TurnCommit> running = store.appendTurn(c.id(), 0, List.of(user("blocked")), null);
      awaitWorkerRunningAWrite();
      for (int i = 0; i < 5; i++) {
        loads.add(store.load(c.id()));
      }
      Future<Void> closed = store.close();
      for (Future<StoredConversation> f : loads) {
        StoreException e = failure(f);
        assertEquals(Kind.UNAVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
      }
      s.execute("ROLLBACK");
      running.await(30, TimeUnit.SECONDS);
      closed.await(30, TimeUnit.SECONDS);
    }
    store = null;
  }

  @Test
  void writesQueuedTogetherCommitTogetherAndAConflictInTheGroupFailsOnlyItself() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      String id = newId();
      await(store.insert(NewConversation.of(id)));
      ids.add(id);
    }
    io.vertx.core.json.JsonObject m = new io.vertx.core.json.JsonObject().put("role", "user").put("content", "hi");
    List<Future<TurnCommit>> commits = new ArrayList<>();
    for (String id : ids) {
      commits.add(store.appendTurn(id, 0, List.of(m), null));
    }
    // queued behind the first writes: commits in a group with them, and conflicts alone
    Future<TurnCommit> stale = store.appendTurn(ids.get(0), 0, List.of(m), null);
    for (Future<TurnCommit> f : commits) {
      assertEquals(1, await(f).version());
    }
    assertEquals(Kind.CONFLICT, failure(stale).kind());
    for (String id : ids) {
      assertEquals(1, await(store.load(id)).messages().size(), "exactly the one committed turn of " + id);
    }
  }

  /**
   * Waits until the store's worker thread is inside a write (its group commit), so that what
   * is submitted next queues behind it instead of joining its group.
   */
  private static void awaitWorkerRunningAWrite() {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
        if (t.getKey().getName().equals("agentbus-store-sqlite")
          && Arrays.stream(t.getValue()).anyMatch(f -> f.getMethodName().equals("runGroup"))) {
          return;
        }
      }
      Thread.onSpinWait();
    }
    throw new AssertionError("the store's worker did not start the write within 10 s");
  }
}
