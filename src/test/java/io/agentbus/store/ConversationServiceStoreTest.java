package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.ReportedFailure;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conversation service on a real store: every turn commits, what leaves memory comes back
 * from the store, two writers on one conversation never both commit, a history past its limit
 * is refused, a damaged conversation fails alone, and a store that goes away fails turns with
 * 503 until it is back. The model is the mock model over real HTTP.
 */
class ConversationServiceStoreTest {

  private Vertx vertx;
  private MockModelServer mock;
  private final List<Agentbus> deployed = new ArrayList<>();

  @TempDir
  Path dir;

  @BeforeEach
  void startMock() throws Exception {
    vertx = Vertx.vertx();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO)).await(20, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    for (Agentbus a : deployed) {
      a.close().await(20, TimeUnit.SECONDS);
    }
    mock.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  private ConversationOptions conversation() {
    return new ConversationOptions().setModel(new ModelOptions().setProvider("anthropic").setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock"));
  }

  private Agentbus deploy(Vertx on, StoreOptions store, ConversationOptions conversation) throws Exception {
    Agentbus a = Agentbus.deploy(on, new AgentbusOptions().setConversationInstances(2).setStore(store)
      .setConversation(conversation)).await(30, TimeUnit.SECONDS);
    deployed.add(a);
    return a;
  }

  private StoreOptions sqlite() {
    return new StoreOptions().setType(StoreOptions.Type.SQLITE).setPath(dir.resolve("agentbus.db").toString())
      .setSynchronous(StoreOptions.Synchronous.NORMAL);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  private static ReplyException failure(Future<?> f) {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return assertInstanceOf(ReplyException.class, e, "expected a bus failure, got " + e);
    }
    throw new AssertionError("expected a failure, got a success");
  }

  @Test
  void everyTurnIsCommittedAndAConversationThatLeftMemoryComesBack() throws Exception {
    Agentbus a = deploy(vertx, new StoreOptions().setType(StoreOptions.Type.MEMORY), conversation().setMaxConversations(2));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String id = await(a.createConversation(new JsonObject()));
      await(a.send(id, "hello number " + i));
      ids.add(id);
    }
    for (String id : ids) {
      StoredConversation stored = await(a.store().load(id));
      assertEquals(1, stored.version());
      assertEquals(2, stored.messages().size(), "the user message and the answer are committed");
    }
    // at most two stay in memory: the first ones left it, and still answer, from the store
    JsonObject first = await(a.get(ids.get(0)));
    assertEquals(2, first.getJsonArray("messages").size());
    assertEquals("hello number 0", first.getJsonArray("messages").getJsonObject(0).getValue("content"));
    await(a.send(ids.get(0), "and again"));
    assertEquals(2, await(a.store().load(ids.get(0))).version());
    assertEquals(4, await(a.get(ids.get(0))).getJsonArray("messages").size());
  }

  @Test
  void aMessageThatWouldTakeTheHistoryPastItsLimitIsRefusedWith413AndChangesNothing() throws Exception {
    Agentbus a = deploy(vertx, new StoreOptions().setType(StoreOptions.Type.MEMORY), conversation().setMaxHistoryBytes(8_000));
    String id = await(a.createConversation(new JsonObject()));
    await(a.send(id, "x".repeat(2_000)));
    ReplyException refused = failure(a.send(id, "y".repeat(6_000)));
    assertEquals(FailureCodes.TOO_LARGE, refused.failureCode());
    assertTrue(refused.getMessage().contains("maxHistoryBytes") && refused.getMessage().contains("start a new conversation"),
      refused.getMessage());
    assertEquals(1, await(a.store().load(id)).version(), "nothing was committed");
    assertEquals(2, await(a.get(id)).getJsonArray("messages").size(), "nothing was appended");
    await(a.send(id, "short"));
    assertEquals(2, await(a.store().load(id)).version(), "a message that fits still goes through");
  }

  @Test
  void twoWritersOnOneVersionNeverBothCommitTheLoserGets409AndThenCatchesUp() throws Exception {
    Vertx other = Vertx.vertx();
    try {
      Agentbus a = deploy(vertx, sqlite(), conversation());
      Agentbus b = deploy(other, sqlite(), conversation());
      String id = await(a.createConversation(new JsonObject()));
      assertEquals(0, await(b.get(id)).getJsonArray("messages").size(), "b holds the conversation at version 0");
      await(a.send(id, "from a"));
      ReplyException lost = failure(b.send(id, "from b"));
      assertEquals(FailureCodes.CONFLICT, lost.failureCode());
      assertTrue(lost.getMessage().contains("changed by another writer"), lost.getMessage());
      StoredConversation afterConflict = await(a.store().load(id));
      assertEquals(1, afterConflict.version());
      assertEquals("from a", afterConflict.messages().get(0).getValue("content"));
      await(b.send(id, "from b again"));
      StoredConversation last = await(a.store().load(id));
      assertEquals(2, last.version());
      assertEquals(4, last.messages().size());
      assertEquals("from b again", last.messages().get(2).getValue("content"));
    } finally {
      for (Agentbus x : new ArrayList<>(deployed)) {
        x.close().await(20, TimeUnit.SECONDS);
      }
      deployed.clear();
      other.close().await(20, TimeUnit.SECONDS);
    }
  }

  @Test
  void conversationsSurviveARestartAndADamagedOneFailsAloneWithAClearError() throws Exception {
    Agentbus a = deploy(vertx, sqlite(), conversation());
    String good = await(a.createConversation(new JsonObject()));
    String damaged = await(a.createConversation(new JsonObject()));
    await(a.send(good, "keep me"));
    await(a.send(damaged, "break me"));
    a.close().await(20, TimeUnit.SECONDS);
    deployed.remove(a);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("agentbus.db"));
         PreparedStatement ps = c.prepareStatement(
           "UPDATE conversation_messages SET content = '{\"role\": \"user\", oops' WHERE conversation_id = ? AND seq = 1")) {
      ps.setString(1, damaged);
      assertEquals(1, ps.executeUpdate());
    }
    Agentbus restarted = deploy(vertx, sqlite(), conversation());
    JsonObject kept = await(restarted.get(good));
    assertEquals("keep me", kept.getJsonArray("messages").getJsonObject(0).getValue("content"));
    ReplyException broken = failure(restarted.get(damaged));
    assertInstanceOf(ReportedFailure.class, broken, "the reason reaches the caller");
    assertEquals(FailureCodes.INTERNAL, broken.failureCode());
    assertTrue(broken.getMessage().contains(damaged) && broken.getMessage().contains("cannot be loaded"), broken.getMessage());
    assertEquals(FailureCodes.INTERNAL, failure(restarted.send(damaged, "hello?")).failureCode());
    await(restarted.send(good, "still here"));
    assertEquals(2, await(restarted.store().load(good)).version());
  }

  @Test
  void listPagesTheCallersConversationsNewestFirst() throws Exception {
    Agentbus a = deploy(vertx, sqlite(), conversation());
    List<String> alice = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String id = await(a.createConversation(new JsonObject().put("tenant", "alice")));
      await(request(Actions.SEND, new JsonObject().put("id", id).put("tenant", "alice").put("content", "alice " + i)));
      alice.add(id);
    }
    await(a.createConversation(new JsonObject().put("tenant", "bob")));
    JsonObject page1 = await(list(new JsonObject().put("tenant", "alice").put("limit", 2)));
    JsonArray items = page1.getJsonArray("conversations");
    assertEquals(List.of(alice.get(2), alice.get(1)), items.stream().map(o -> ((JsonObject) o).getString("id")).toList());
    assertEquals("alice 2", items.getJsonObject(0).getString("title"));
    assertEquals(1, items.getJsonObject(0).getLong("turns"));
    JsonObject page2 = await(list(new JsonObject().put("tenant", "alice").put("limit", 2).put("after", page1.getString("next"))));
    assertEquals(List.of(alice.get(0)), page2.getJsonArray("conversations").stream().map(o -> ((JsonObject) o).getString("id")).toList());
    assertFalse(page2.containsKey("next"));
    assertEquals(1, await(list(new JsonObject().put("tenant", "bob"))).getJsonArray("conversations").size());
    assertEquals(FailureCodes.BAD_REQUEST, failure(list(new JsonObject().put("limit", 0))).failureCode());
    assertEquals(FailureCodes.BAD_REQUEST, failure(list(new JsonObject().put("after", "not-a-cursor"))).failureCode());
  }

  private Future<JsonObject> list(JsonObject body) {
    return request(Actions.LIST, body);
  }

  private Future<JsonObject> request(String action, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.CONVERSATION, body,
      new DeliveryOptions().addHeader(Actions.HEADER, action)).map(Message::body);
  }

  @Test
  void aStoreThatGoesAwayFailsTurnsWith503AndTheServiceRecoversWhenItIsBack() throws Exception {
    PgTestSupport.requireServer();
    String role = "agentbus_t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String schema = PgTestSupport.newSchema();
    PgTestSupport.sql(vertx, "CREATE ROLE " + role + " LOGIN");
    try {
      PgTestSupport.sql(vertx, "GRANT CREATE ON DATABASE test TO " + role);
      String base = PgTestSupport.uri();
      String uri = base.replaceFirst("postgres(ql)?://[^@/]*@", "postgresql://" + role + "@")
        + (base.contains("?") ? "&" : "?") + "application_name=" + role;
      Agentbus a = deploy(vertx, new StoreOptions().setType(StoreOptions.Type.POSTGRES).setUri(uri).setSchema(schema)
        .setConnectTimeoutMs(2_000).setRequestTimeoutMs(3_000), conversation().setMaxConversations(1));
      String id = await(a.createConversation(new JsonObject()));
      await(a.send(id, "before the outage"));

      PgTestSupport.sql(vertx, "ALTER ROLE " + role + " NOLOGIN");
      PgTestSupport.sql(vertx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", role);
      ReplyException down = failure(a.send(id, "during the outage"));
      assertEquals(FailureCodes.UNAVAILABLE, down.failureCode());
      assertTrue(down.getMessage().contains("conversation store is unavailable") && down.getMessage().contains("unchanged"),
        down.getMessage());
      assertFalse(down.getMessage().contains("@127.0.0.1") && down.getMessage().contains("password"), down.getMessage());
      assertEquals(2, await(a.get(id)).getJsonArray("messages").size(), "memory holds the last committed turn only");

      PgTestSupport.sql(vertx, "ALTER ROLE " + role + " LOGIN");
      await(a.send(id, "after the outage"));
      StoredConversation stored = await(a.store().load(id));
      assertEquals(2, stored.version());
      assertEquals("after the outage", stored.messages().get(2).getValue("content"));
    } finally {
      for (Agentbus x : new ArrayList<>(deployed)) {
        x.close().await(20, TimeUnit.SECONDS);
      }
      deployed.clear();
      PgTestSupport.dropSchema(schema);
      PgTestSupport.sql(vertx, "REVOKE CREATE ON DATABASE test FROM " + role);
      PgTestSupport.sql(vertx, "DROP ROLE IF EXISTS " + role);
    }
  }
}
