package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.StoreException.Kind;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ConversationStore} keeps; one subclass per implementation supplies
 * the options and the hooks that reach behind the store (corrupting a row, a failing trigger).
 */
abstract class ConversationStoreContract {

  protected Vertx vertx;
  protected ConversationStore store;
  private final List<ConversationStore> extra = new ArrayList<>();

  /** @return the options of a fresh, empty store for one test */
  protected abstract StoreOptions options() throws Exception;

  /** @return whether a closed and reopened store still has the data (memory: no) */
  protected abstract boolean durable();

  /** Overwrites message {@code seq} of {@code id} with something that is not a JSON object, behind the store's back. */
  protected void corruptMessage(String id, int seq) throws Exception {
    Assumptions.abort(store.describe() + " has no rows to corrupt");
  }

  /** Makes the database reject any message whose role is "explode" (a failure in the middle of a commit). */
  protected void installFailingTrigger() throws Exception {
    Assumptions.abort(store.describe() + " has no triggers");
  }

  @BeforeEach
  void openStore() throws Exception {
    vertx = Vertx.vertx();
    store = await(ConversationStore.create(vertx, options()));
  }

  @AfterEach
  void closeStore() throws Exception {
    try {
      for (ConversationStore s : extra) {
        s.close().await(10, TimeUnit.SECONDS);
      }
      if (store != null) {
        store.close().await(10, TimeUnit.SECONDS);
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
      afterStoreClosed();
    }
  }

  /** Cleanup after the store and Vert.x are closed (drop a schema, say). */
  protected void afterStoreClosed() throws Exception {
  }

  /** @return a second store over the same data, as another node or process would open it */
  protected ConversationStore second() throws Exception {
    if (!durable()) {
      return store;
    }
    ConversationStore s = await(ConversationStore.create(vertx, options()));
    extra.add(s);
    return s;
  }

  protected static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  protected static StoreException failure(Future<?> f) throws Exception {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (StoreException e) {
      return e;
    }
    throw new AssertionError("the operation succeeded");
  }

  protected static String newId() {
    return "c-" + UUID.randomUUID();
  }

  protected static JsonObject user(String text) {
    return new JsonObject().put("role", "user").put("content", text);
  }

  protected static JsonObject assistantToolUse(String toolId) {
    return new JsonObject().put("role", "assistant").put("content", new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", "Let me check. ✓ 日本"))
      .add(new JsonObject().put("type", "tool_use").put("id", toolId).put("name", "weather__get")
        .put("input", new JsonObject().put("city", "Zürich").put("days", 3).put("nested", new JsonObject().put("a", new JsonArray().add(1).add(2.5))))));
  }

  protected static JsonObject toolResult(String toolId, String text) {
    return new JsonObject().put("role", "user").put("content", new JsonArray()
      .add(new JsonObject().put("type", "tool_result").put("tool_use_id", toolId).put("is_error", false)
        .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", text)))));
  }

  protected static JsonObject assistant(String text) {
    return new JsonObject().put("role", "assistant").put("content", new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", text)));
  }

  protected static JsonObject usage(long in, long out) {
    return new JsonObject().put("input_tokens", in).put("output_tokens", out)
      .put("cache_creation_input_tokens", 0).put("cache_read_input_tokens", 2);
  }

  protected StoredConversation insert(String tenant) throws Exception {
    return await(store.insert(new NewConversation(newId(), tenant, null, null, null)));
  }

  @Test
  void insertThenLoadGivesItBackAtVersionZero() throws Exception {
    JsonObject tools = new JsonObject().put("allow", new JsonArray().add("weather__*"));
    String id = newId();
    StoredConversation inserted = await(store.insert(new NewConversation(id, "acme", null, "Be brief.", tools)));
    assertEquals(0, inserted.version());
    StoredConversation loaded = await(store.load(id));
    assertEquals(id, loaded.id());
    assertEquals("acme", loaded.tenant());
    assertNull(loaded.title());
    assertEquals("Be brief.", loaded.system());
    assertEquals(tools, loaded.tools());
    assertEquals(0, loaded.version());
    assertEquals(0, loaded.turns());
    assertEquals(List.of(), loaded.messages());
    assertEquals(new JsonObject(), loaded.usage());
    assertEquals(inserted.createdAt(), loaded.createdAt());
    assertEquals(loaded.createdAt(), loaded.updatedAt());
    assertTrue(Math.abs(System.currentTimeMillis() - loaded.createdAt()) < 60_000);
  }

  @Test
  void anIdIsInsertedOnce() throws Exception {
    StoredConversation c = insert(null);
    StoreException e = failure(store.insert(NewConversation.of(c.id())));
    assertEquals(Kind.CONFLICT, e.kind());
    assertTrue(e.getMessage().contains(c.id()), e.getMessage());
  }

  @Test
  void loadingAnUnknownIdIsNotFound() throws Exception {
    StoreException e = failure(store.load("nope"));
    assertEquals(Kind.NOT_FOUND, e.kind());
    assertTrue(e.getMessage().contains("nope"));
  }

  @Test
  void turnsAppendInOrderBumpTheVersionSumTheUsageAndSetTheTitle() throws Exception {
    StoredConversation c = insert("acme");
    String longText = "  What is\n the   weather in Zürich " + "and then some more words ".repeat(10);
    List<JsonObject> turn1 = List.of(user(longText), assistantToolUse("toolu_1"), toolResult("toolu_1", "sunny, 21°C"),
      assistant("Sunny."));
    TurnCommit first = await(store.appendTurn(c.id(), 0, turn1, usage(100, 20).put("server_tool_use",
      new JsonObject().put("web_search_requests", 1))));
    assertEquals(1, first.version());
    assertEquals(4, first.messageCount());
    assertNotNull(first.title());
    assertTrue(first.title().startsWith("What is the weather in Zürich and then"), first.title());
    assertEquals(80, first.title().codePointCount(0, first.title().length()));
    assertTrue(first.title().endsWith("…"));

    List<JsonObject> turn2 = List.of(user("And tomorrow?"), assistant("Rain."));
    TurnCommit second = await(store.appendTurn(c.id(), 1, turn2, usage(150, 5).put("server_tool_use",
      new JsonObject().put("web_search_requests", 2))));
    assertEquals(2, second.version());
    assertEquals(6, second.messageCount());
    assertEquals(first.title(), second.title(), "the title is set once");
    assertTrue(second.updatedAt() >= first.updatedAt());

    StoredConversation loaded = await(store.load(c.id()));
    List<JsonObject> all = new ArrayList<>(turn1);
    all.addAll(turn2);
    assertEquals(all, loaded.messages());
    assertEquals(2, loaded.version());
    assertEquals(second.updatedAt(), loaded.updatedAt());
    assertEquals(first.title(), loaded.title());
    JsonObject u = loaded.usage();
    assertEquals(250L, u.getLong("input_tokens"));
    assertEquals(25L, u.getLong("output_tokens"));
    assertEquals(4L, u.getLong("cache_read_input_tokens"));
    assertEquals(3L, u.getJsonObject("server_tool_use").getLong("web_search_requests"));
    assertEquals(second.usage(), u);
  }

  @Test
  void theTitleComesFromTheFirstUserTextBlock() throws Exception {
    StoredConversation c = insert(null);
    JsonObject blocks = new JsonObject().put("role", "user").put("content", new JsonArray()
      .add(new JsonObject().put("type", "image").put("source", new JsonObject().put("type", "base64").put("data", "AAAA")))
      .add(new JsonObject().put("type", "text").put("text", "Describe this picture")));
    assertEquals("Describe this picture", await(store.appendTurn(c.id(), 0, List.of(blocks), null)).title());
  }

  @Test
  void aTurnWithoutMessagesOnlyAddsUsage() throws Exception {
    StoredConversation c = insert(null);
    TurnCommit commit = await(store.appendTurn(c.id(), 0, List.of(), usage(7, 0)));
    assertEquals(1, commit.version());
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(List.of(), loaded.messages());
    assertEquals(7L, loaded.usage().getLong("input_tokens"));
    assertNull(loaded.title());
  }

  @Test
  void aStaleVersionConflictsAndWritesNothing() throws Exception {
    StoredConversation c = insert(null);
    await(store.appendTurn(c.id(), 0, List.of(user("one"), assistant("1")), usage(1, 1)));
    StoreException e = failure(store.appendTurn(c.id(), 0, List.of(user("two"), assistant("2")), usage(1, 1)));
    assertEquals(Kind.CONFLICT, e.kind());
    assertTrue(e.getMessage().contains(c.id()) && e.getMessage().contains("version 1"), e.getMessage());
    StoreException ahead = failure(store.appendTurn(c.id(), 5, List.of(user("x")), null));
    assertEquals(Kind.CONFLICT, ahead.kind());
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(1, loaded.version());
    assertEquals(List.of(user("one"), assistant("1")), loaded.messages());
    assertEquals(1L, loaded.usage().getLong("input_tokens"));
  }

  @Test
  void concurrentAppendsOnOneVersionLetExactlyOneWin() throws Exception {
    StoredConversation c = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("start"), assistant("ok")), usage(1, 1)));
    ConversationStore other = second();
    int writers = 8;
    List<Future<TurnCommit>> attempts = new ArrayList<>();
    Promise<Void> go = Promise.promise();
    for (int i = 0; i < writers; i++) {
      ConversationStore s = i % 2 == 0 ? store : other;
      List<JsonObject> turn = List.of(user("writer " + i), assistant("answer " + i));
      // each writer on its own context, all released at once
      Promise<TurnCommit> p = Promise.promise();
      vertx.runOnContext(v -> go.future().onComplete(x -> s.appendTurn(c.id(), 1, turn, usage(10, 10)).onComplete(p)));
      attempts.add(p.future());
    }
    go.complete();
    // join waits for all of them; that some failed is the point
    Future.join(attempts).otherwiseEmpty().await(30, TimeUnit.SECONDS);
    int won = -1;
    int conflicts = 0;
    for (int i = 0; i < writers; i++) {
      Future<TurnCommit> a = attempts.get(i);
      if (a.succeeded()) {
        assertEquals(-1, won, "two writers committed on version 1");
        won = i;
        assertEquals(2, a.result().version());
      } else {
        assertTrue(StoreException.is(a.cause(), Kind.CONFLICT), String.valueOf(a.cause()));
        conflicts++;
      }
    }
    assertTrue(won >= 0, "nobody won");
    assertEquals(writers - 1, conflicts);
    StoredConversation loaded = await(other.load(c.id()));
    assertEquals(2, loaded.version());
    assertEquals(List.of(user("start"), assistant("ok"), user("writer " + won), assistant("answer " + won)), loaded.messages());
    assertEquals(11L, loaded.usage().getLong("input_tokens"));
  }

  @Test
  void deleteRemovesItAndLaterWritesAreNotFound() throws Exception {
    StoredConversation c = insert("acme");
    StoredConversation kept = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("hi"), assistant("hello")), usage(1, 1)));
    await(store.delete(c.id()));
    assertEquals(Kind.NOT_FOUND, failure(store.load(c.id())).kind());
    assertEquals(Kind.NOT_FOUND, failure(store.appendTurn(c.id(), 1, List.of(user("again")), null)).kind());
    assertEquals(Kind.NOT_FOUND, failure(store.delete(c.id())).kind());
    assertEquals(kept.id(), await(store.load(kept.id())).id());
    // the id can be used again, from scratch
    await(store.insert(NewConversation.of(c.id())));
    assertEquals(List.of(), await(store.load(c.id())).messages());
  }

  @Test
  void listingIsNewestFirstPerTenantWithCursorPaging() throws Exception {
    String tenant = "t-" + UUID.randomUUID();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      StoredConversation c = insert(tenant);
      ids.add(c.id());
      nextMillisecond(); // distinct updatedAt
    }
    insert("someone-else");
    insert(null);
    // the oldest gets a turn: it becomes the newest
    nextMillisecond();
    TurnCommit commit = await(store.appendTurn(ids.get(0), 0, List.of(user("Bump me"), assistant("ok")), usage(5, 6)));
    List<String> expected = List.of(ids.get(0), ids.get(4), ids.get(3), ids.get(2), ids.get(1));

    ConversationPage page1 = await(store.list(tenant, 2, null));
    assertEquals(2, page1.items().size());
    assertNotNull(page1.nextCursor());
    ConversationSummary top = page1.items().get(0);
    assertEquals(ids.get(0), top.id());
    assertEquals("Bump me", top.title());
    assertEquals(1, top.turns());
    assertEquals(commit.updatedAt(), top.updatedAt());
    assertEquals(5L, top.usage().getLong("input_tokens"));
    JsonObject json = top.toJson();
    assertEquals(Set.of("id", "title", "createdAt", "updatedAt", "usage", "turns"), json.fieldNames());

    ConversationPage page2 = await(store.list(tenant, 2, page1.nextCursor()));
    ConversationPage page3 = await(store.list(tenant, 2, page2.nextCursor()));
    assertEquals(1, page3.items().size());
    assertNull(page3.nextCursor());
    List<String> seen = new ArrayList<>();
    for (ConversationPage p : List.of(page1, page2, page3)) {
      p.items().forEach(i -> seen.add(i.id()));
    }
    assertEquals(expected, seen);

    ConversationPage exact = await(store.list(tenant, 5, null));
    assertEquals(5, exact.items().size());
    assertNull(exact.nextCursor(), "no next page when exactly the limit is left");

    assertEquals(1, await(store.list(null, 10, null)).items().size());
    assertEquals(List.of(), await(store.list("nobody", 10, null)).items());
  }

  @Test
  void pagingThroughEqualTimestampsMissesAndRepeatsNothing() throws Exception {
    String tenant = "t-" + UUID.randomUUID();
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      ids.add(insert(tenant).id()); // many share a millisecond
    }
    List<ConversationSummary> seen = new ArrayList<>();
    String cursor = null;
    do {
      ConversationPage page = await(store.list(tenant, 5, cursor));
      seen.addAll(page.items());
      cursor = page.nextCursor();
    } while (cursor != null);
    assertEquals(12, seen.size());
    assertEquals(ids, new HashSet<>(seen.stream().map(ConversationSummary::id).toList()));
    for (int i = 1; i < seen.size(); i++) {
      ConversationSummary a = seen.get(i - 1);
      ConversationSummary b = seen.get(i);
      assertTrue(a.updatedAt() > b.updatedAt() || (a.updatedAt() == b.updatedAt() && a.id().compareTo(b.id()) > 0),
        "out of order at " + i);
    }
  }

  @Test
  void badCursorsAndLimitsAreInvalid() throws Exception {
    assertEquals(Kind.INVALID, failure(store.list("t", 0, null)).kind());
    assertEquals(Kind.INVALID, failure(store.list("t", ConversationStore.MAX_LIST_LIMIT + 1, null)).kind());
    assertEquals(Kind.INVALID, failure(store.list("t", 10, "not-a-cursor!")).kind());
    assertEquals(Kind.INVALID, failure(store.list("t", 10, "Zm9vOmJhcg")).kind()); // "foo:bar"
    assertEquals(Kind.INVALID, failure(store.appendTurn("x", -1, List.of(), null)).kind());
  }

  @Test
  void usageTotalsSumATenantsConversations() throws Exception {
    String tenant = "t-" + UUID.randomUUID();
    StoredConversation a = insert(tenant);
    StoredConversation b = insert(tenant);
    insert(tenant);
    StoredConversation other = insert("other-" + tenant);
    await(store.appendTurn(a.id(), 0, List.of(user("a")), usage(10, 1)));
    await(store.appendTurn(a.id(), 1, List.of(user("a2")), usage(20, 2)));
    await(store.appendTurn(b.id(), 0, List.of(user("b")), usage(30, 3)));
    await(store.appendTurn(other.id(), 0, List.of(user("o")), usage(1000, 1000)));
    JsonObject totals = await(store.usageTotals(tenant));
    assertEquals(new JsonObject().put("conversations", 3L).put("turns", 3L).put("input_tokens", 60L)
      .put("output_tokens", 6L).put("cache_creation_input_tokens", 0L).put("cache_read_input_tokens", 6L), totals);
    assertEquals(0L, await(store.usageTotals("nobody-" + tenant)).getLong("conversations"));
  }

  @Test
  void theStoreKeepsItsOwnCopies() throws Exception {
    StoredConversation c = insert(null);
    JsonObject message = user("original");
    List<JsonObject> turn = new ArrayList<>(List.of(message));
    Future<TurnCommit> commit = store.appendTurn(c.id(), 0, turn, null);
    message.put("content", "changed by the caller");
    turn.add(user("added by the caller"));
    await(commit);
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(List.of(user("original")), loaded.messages());
    loaded.messages().get(0).put("content", "changed by a reader");
    assertEquals(List.of(user("original")), await(store.load(c.id())).messages());
  }

  @Test
  void aNulCharacterInAToolResultStillCommits() throws Exception {
    StoredConversation c = insert(null);
    JsonObject result = toolResult("toolu_9", "bin\u0000ary \\u0000 literal");
    await(store.appendTurn(c.id(), 0, List.of(user("q"), assistantToolUse("toolu_9"), result), null));
    String text = await(store.load(c.id())).messages().get(2).getJsonArray("content").getJsonObject(0)
      .getJsonArray("content").getJsonObject(0).getString("text");
    // PostgreSQL stores no NUL: U+FFFD stands in; the escaped-backslash text stays as it was
    assertTrue(text.equals("bin\u0000ary \\u0000 literal") || text.equals("bin\uFFFDary \\u0000 literal"), text);
  }

  @Test
  void outcomesArriveOnTheCallersContext() throws Exception {
    StoredConversation c = insert(null);
    Context context = vertx.getOrCreateContext();
    List<Supplier<Future<?>>> ops = List.of(
      () -> store.load(c.id()),
      () -> store.appendTurn(c.id(), 0, List.of(user("hi")), null),
      () -> store.list(null, 10, null),
      () -> store.usageTotals(null),
      () -> store.load("missing"),
      () -> store.insert(NewConversation.of(newId())));
    for (Supplier<Future<?>> op : ops) {
      Promise<Context> where = Promise.promise();
      context.runOnContext(v -> op.get().onComplete(ar -> where.complete(Vertx.currentContext())));
      assertSame(context, await(where.future()));
    }
  }

  @Test
  void aClosedStoreRefusesWorkAsUnavailable() throws Exception {
    StoredConversation c = insert(null);
    await(store.close());
    StoreException e = failure(store.load(c.id()));
    assertEquals(Kind.UNAVAILABLE, e.kind());
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    store = null;
  }

  @Test
  void committedTurnsSurviveAReopen() throws Exception {
    Assumptions.assumeTrue(durable(), "memory keeps nothing across a reopen");
    StoredConversation c = insert("acme");
    await(store.appendTurn(c.id(), 0, List.of(user("remember me"), assistant("sure")), usage(3, 4)));
    await(store.close());
    store = await(ConversationStore.create(vertx, options()));
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(List.of(user("remember me"), assistant("sure")), loaded.messages());
    assertEquals(1, loaded.version());
    assertEquals("remember me", loaded.title());
    assertEquals(3L, loaded.usage().getLong("input_tokens"));
  }

  @Test
  void aCommitThatFailsHalfwayLeavesTheLastTurnIntact() throws Exception {
    StoredConversation c = insert(null);
    await(store.appendTurn(c.id(), 0, List.of(user("one"), assistant("1")), usage(1, 1)));
    installFailingTrigger();
    // the header update goes through, then the second message insert fails: all of it rolls back
    StoreException e = failure(store.appendTurn(c.id(), 1,
      List.of(user("two"), new JsonObject().put("role", "explode"), assistant("2")), usage(5, 5)));
    assertEquals(Kind.FAILED, e.kind(), e.toString());
    StoredConversation loaded = await(store.load(c.id()));
    assertEquals(1, loaded.version());
    assertEquals(List.of(user("one"), assistant("1")), loaded.messages());
    assertEquals(1L, loaded.usage().getLong("input_tokens"));
    // and the store goes on: the same version commits
    assertEquals(2, await(store.appendTurn(c.id(), 1, List.of(user("two"), assistant("2")), null)).version());
  }

  @Test
  void aCorruptMessageFailsThatConversationOnly() throws Exception {
    StoredConversation bad = insert("acme");
    StoredConversation good = insert("acme");
    await(store.appendTurn(bad.id(), 0, List.of(user("hi"), assistant("hello")), usage(1, 1)));
    await(store.appendTurn(good.id(), 0, List.of(user("hi"), assistant("hello")), usage(1, 1)));
    corruptMessage(bad.id(), 1);
    StoreException e = failure(store.load(bad.id()));
    assertEquals(Kind.CORRUPT, e.kind());
    assertTrue(e.getMessage().contains(bad.id()) && e.getMessage().contains("message 1"), e.getMessage());
    assertTrue(e.getMessage().contains(store.describe()), e.getMessage());
    assertEquals(2, await(store.load(good.id())).messages().size());
    assertEquals(2, await(store.list("acme", 10, null)).items().size());
    assertFalse(await(store.appendTurn(good.id(), 1, List.of(user("more")), null)).title().isEmpty());
  }

  /** Waits for the wall clock to move on, so that the next write gets a later {@code updatedAt}. */
  private static void nextMillisecond() {
    long now = System.currentTimeMillis();
    while (System.currentTimeMillis() <= now + 1) {
      Thread.onSpinWait();
    }
  }
}
