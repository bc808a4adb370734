package io.agentbus.http;

import static io.agentbus.http.ApprovalFixture.ALICE;
import static io.agentbus.http.ApprovalFixture.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.cluster.ClusterNodes;
import io.agentbus.cluster.ClusterOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.store.StoreOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.NotesToolServer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Approvals across a cluster: two nodes in this JVM on the clustered event bus share a
 * PostgreSQL store; node A runs the recording MCP server, both run conversations and an HTTP
 * API, and each request goes to a conversation node picked in turn (as on a node whose loop has
 * no conversation instance), so the turn runs on one node while the approval requests are served
 * by either. The approval event reaches B's bus, B's API lists the waiting call and answers it
 * wherever the turn runs (another tenant gets 404 there too), and a late answer is 409. Skipped without a PostgreSQL, as
 * {@code ClusterServeTest} is.
 */
@Integration
class ApprovalClusterTest {

  private static final String PG_URI = System.getenv().getOrDefault("AGENTBUS_TEST_PG_URI",
    "postgresql://postgres@127.0.0.1:5432/test");
  private static final long WAIT_S = 60;

  private Vertx local;
  private MockModelServer mock;
  private String schema;
  private Vertx a;
  private Vertx b;
  private HttpApiVerticle apiA;
  private HttpApiVerticle apiB;
  private Agentbus agentbusA;
  private Agentbus agentbusB;
  private WebClient web;

  @BeforeEach
  void start() throws Exception {
    local = Vertx.vertx();
    try {
      PgConnection.connect(local, PgConnectOptions.fromUri(PG_URI))
        .compose(c -> c.query("SELECT 1").execute().eventually(c::close)).await(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      Assumptions.abort("approval cluster test skipped: no PostgreSQL answers at AGENTBUS_TEST_PG_URI (" + e.getMessage() + ")");
    }
    schema = "approvals_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    web = WebClient.create(local);
    mock = MockModelServer.start(local, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT)
      .setScript(ApprovalFixture.scripts())).await(20, TimeUnit.SECONDS);
    ClusterOptions cluster = new ClusterOptions().setEnabled(true).setName("approvals-" + schema).setFailureDetectionMs(2_000);
    a = ClusterNodes.startVertx(new VertxOptions(), cluster).await(WAIT_S, TimeUnit.SECONDS);
    b = ClusterNodes.startVertx(new VertxOptions(), cluster).await(WAIT_S, TimeUnit.SECONDS);
    StoreOptions store = new StoreOptions().setType(StoreOptions.Type.POSTGRES).setUri(PG_URI).setSchema(schema);
    ConversationOptions conversation = new ConversationOptions().setMaxIterations(5).setApprovalTimeoutMs(20_000)
      .setModel(new ModelOptions().setProvider("anthropic").setApiKey("test-key")
        .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model"));
    agentbusA = Agentbus.deploy(a, new AgentbusOptions().setStore(store).setConversation(conversation).setConversationInstances(1)
      .addMcpServer(InteropServers.javaMain("notes", NotesToolServer.class).setApproval(ToolApproval.DESTRUCTIVE)))
      .await(WAIT_S, TimeUnit.SECONDS);
    agentbusB = Agentbus.deploy(b, new AgentbusOptions().setStore(store).setConversation(conversation).setConversationInstances(1))
      .await(WAIT_S, TimeUnit.SECONDS);
    // as serve does: a request reaches a conversation node it picks (in turn) when its loop has no instance
    ClusterNodes.announce(a, cluster.getName(), "A", List.of("http", "conversation", "mcp"), List.of("notes"))
      .await(WAIT_S, TimeUnit.SECONDS);
    ClusterNodes.announce(b, cluster.getName(), "B", List.of("http", "conversation"), List.of()).await(WAIT_S, TimeUnit.SECONDS);
    apiA = api(a);
    apiB = api(b);
    // a turn may run on either node: both catalogs must offer the tool first (B hears of it over the cluster)
    agentbusA.serversReady().await(WAIT_S, TimeUnit.SECONDS);
    for (HttpApiVerticle api : List.of(apiA, apiB)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_S);
      while (!request(api, HttpMethod.GET, "/v1/tools", ALICE).send().await(WAIT_S, TimeUnit.SECONDS).bodyAsString()
        .contains("mcp__notes__delete_note")) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the catalog behind port " + api.actualPort() + " never listed mcp__notes__delete_note");
        }
        local.timer(50).await();
      }
    }
  }

  private static HttpApiVerticle api(Vertx vertx) throws Exception {
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1")
      .addToken(ALICE, "alice").addToken(BOB, "bob"));
    vertx.deployVerticle(api).await(WAIT_S, TimeUnit.SECONDS);
    return api;
  }

  @AfterEach
  void stop() throws Exception {
    for (Agentbus agentbus : new Agentbus[] {agentbusB, agentbusA}) {
      if (agentbus != null) {
        agentbus.close().await(WAIT_S, TimeUnit.SECONDS);
      }
    }
    for (Vertx vertx : new Vertx[] {b, a}) {
      if (vertx != null) {
        vertx.close().await(WAIT_S, TimeUnit.SECONDS);
      }
    }
    try {
      if (mock != null) {
        mock.close().await(WAIT_S, TimeUnit.SECONDS);
        PgConnection.connect(local, PgConnectOptions.fromUri(PG_URI))
          .compose(c -> c.query("DROP SCHEMA IF EXISTS " + schema + " CASCADE").execute().eventually(c::close))
          .await(30, TimeUnit.SECONDS);
      }
    } finally {
      local.close().await(WAIT_S, TimeUnit.SECONDS);
    }
  }

  private HttpRequest<Buffer> request(HttpApiVerticle api, HttpMethod method, String path, String token) {
    return web.request(method, api.actualPort(), "127.0.0.1", path).bearerTokenAuthentication(token);
  }

  private HttpResponse<Buffer> answer(HttpApiVerticle api, String token, String id, String toolUseId, boolean approve)
      throws Exception {
    return request(api, HttpMethod.POST, "/v1/conversations/" + id + "/approvals/" + toolUseId, token)
      .sendJsonObject(new JsonObject().put("approve", approve)).await(WAIT_S, TimeUnit.SECONDS);
  }

  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void anApprovalAnsweredOnAnotherNodeReachesTheTurn() throws Exception {
    String id = request(apiA, HttpMethod.POST, "/v1/conversations", ALICE).sendJsonObject(new JsonObject())
      .await(WAIT_S, TimeUnit.SECONDS).bodyAsJsonObject().getString("id");
    // B hears the turn's events: they are published cluster-wide
    Promise<JsonObject> required = Promise.promise();
    b.eventBus().<JsonObject>consumer(Addresses.conversationEvents(id), m -> {
      if ("approval_required".equals(m.body().getString("type"))) {
        required.tryComplete(m.body());
      }
    }).completion().await(WAIT_S, TimeUnit.SECONDS);
    Future<HttpResponse<Buffer>> turn = request(apiA, HttpMethod.POST, "/v1/conversations/" + id + "/messages", ALICE)
      .sendJsonObject(new JsonObject().put("content", "APPROVE across nodes"));
    turn.onComplete(ar -> required.tryFail("the turn ended before asking: "
      + (ar.succeeded() ? ar.result().statusCode() + " " + ar.result().bodyAsString() : ar.cause())));
    String toolUseId = required.future().await(WAIT_S, TimeUnit.SECONDS).getString("tool_use_id");

    HttpResponse<Buffer> bobList = request(apiB, HttpMethod.GET, "/v1/conversations/" + id + "/approvals", BOB)
      .send().await(WAIT_S, TimeUnit.SECONDS);
    assertEquals(404, bobList.statusCode(), bobList.bodyAsString());
    assertEquals(404, answer(apiB, BOB, id, toolUseId, true).statusCode());
    HttpResponse<Buffer> listed = request(apiB, HttpMethod.GET, "/v1/conversations/" + id + "/approvals", ALICE)
      .send().await(WAIT_S, TimeUnit.SECONDS);
    assertEquals(200, listed.statusCode(), listed.bodyAsString());
    assertEquals(toolUseId, listed.bodyAsJsonObject().getJsonArray("approvals").getJsonObject(0).getString("tool_use_id"));

    HttpResponse<Buffer> approved = answer(apiB, ALICE, id, toolUseId, true);
    assertEquals(200, approved.statusCode(), approved.bodyAsString());
    HttpResponse<Buffer> done = turn.await(WAIT_S, TimeUnit.SECONDS);
    assertEquals(200, done.statusCode(), done.bodyAsString());
    assertFalse(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));

    // the server (on A) ran it once; asked from B, across the cluster
    JsonArray calls = b.eventBus().<JsonObject>request(Addresses.mcp("notes"), new JsonObject().put("name", "calls")
        .put("arguments", new JsonObject()), new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL))
      .await(WAIT_S, TimeUnit.SECONDS).body().getJsonObject("structuredContent").getJsonArray("calls");
    assertEquals(1, calls.size(), calls.encode());
    assertTrue(ApprovalFixture.called(calls, "approve-me"));
    // the turn has ended: B sees that in the store
    HttpResponse<Buffer> late = answer(apiB, ALICE, id, toolUseId, false);
    assertEquals(409, late.statusCode(), late.bodyAsString());
    assertEquals(List.of(), request(apiB, HttpMethod.GET, "/v1/conversations/" + id + "/approvals", ALICE).send()
      .await(WAIT_S, TimeUnit.SECONDS).bodyAsJsonObject().getJsonArray("approvals").getList());
  }
}
