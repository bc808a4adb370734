package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real server-everything (over stdio) asks through Agentbus: its
 * {@code trigger-elicitation-request} (a rich form: formats, ranges, titled and multi-select
 * enums, defaults) reaches the conversation's user over the HTTP API, an out-of-range answer is
 * refused naming the field, and the accepted one reaches the server with the defaults filled
 * in; its {@code get-roots-list} sees the roots configured for it.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ServerRequestsEverythingTest {

  static final String TOKEN = "everything-token-3c";
  static MockModelServer mock;
  static Agentbus agentbus;
  static HttpApiVerticle api;
  static ServerRequestsApi calls;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    JsonObject scripts = new JsonObject().put("conversations", new JsonArray()
      .add(ServerRequestsApi.script("EV_ASK", ServerRequestsApi.uses(ServerRequestsApi.toolUse(
        "mcp__everything__trigger-elicitation-request", new JsonObject())), ServerRequestsApi.text("asked")))
      .add(ServerRequestsApi.script("EV_ROOTS", ServerRequestsApi.uses(ServerRequestsApi.toolUse(
        "mcp__everything__get-roots-list", new JsonObject())), ServerRequestsApi.text("rooted"))));
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(scripts))
      .compose(m -> {
        mock = m;
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + m.actualPort()).setModel("mock-model");
        return Agentbus.deploy(vertx, new AgentbusOptions()
          .addMcpServer(InteropServers.everythingStdio("everything")
            .setRoots(new JsonArray().add(new JsonObject().put("uri", "file:///srv/data").put("name", "data"))))
          .setConversation(new ConversationOptions().setModel(model).setMaxIterations(3)));
      })
      .compose(a -> {
        agentbus = a;
        api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(TOKEN, "t"));
        return vertx.deployVerticle(api);
      })
      .onComplete(ctx.succeeding(id -> {
        calls = new ServerRequestsApi(WebClient.create(vertx), api.actualPort());
        ctx.completeNow();
      }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    agentbus.close().eventually(() -> mock.close()).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void everythingsFormIsCheckedAndAnsweredWithItsDefaults(Vertx vertx, VertxTestContext ctx) {
    calls.create(TOKEN, new JsonObject()).compose(id ->
      ServerRequestsApi.awaitEvent(vertx, id, ServerRequestsApi.type("input_required")).compose(required -> {
        Future<JsonObject> turn = calls.send(id, TOKEN, "EV_ASK");
        return required.compose(e -> {
          String eid = e.getString("elicitationId");
          return calls.answer(id, eid, TOKEN, new JsonObject().put("action", "accept")
              .put("content", new JsonObject().put("name", "Ada").put("integer", 500)))
            .compose(tooBig -> calls.answer(id, eid, TOKEN, new JsonObject().put("action", "accept")
              .put("content", new JsonObject().put("name", "Ada").put("check", true))).map(ok -> {
                ctx.verify(() -> {
                  assertEquals(400, tooBig.statusCode(), tooBig.bodyAsString());
                  assertTrue(tooBig.bodyAsJsonObject().getJsonObject("error").getJsonArray("violations").encode().contains("integer"),
                    tooBig.bodyAsString());
                  assertEquals(200, ok.statusCode(), ok.bodyAsString());
                  JsonObject content = ok.bodyAsJsonObject().getJsonObject("content");
                  assertEquals(42, content.getInteger("integer"));
                  assertEquals("Monica", content.getString("untitledSingleSelectEnum"));
                  assertEquals(new JsonArray().add("fish-1"), content.getJsonArray("titledMultipleSelectEnum"));
                  assertTrue(e.getJsonObject("requestedSchema").getJsonObject("properties").containsKey("titledSingleSelectEnum"));
                });
                return null;
              }));
        }).compose(v -> turn).compose(r -> calls.lastToolResult(id, TOKEN)).map(result -> {
          ctx.verify(() -> {
            assertTrue(result.contains("Name: Ada") && result.contains("Favorite Integer: 42"), result);
            assertTrue(result.contains("It was a dark and stormy night."), result);
          });
          return null;
        });
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void everythingListsTheRootsConfiguredForIt(VertxTestContext ctx) {
    calls.create(TOKEN, new JsonObject())
      .compose(id -> calls.send(id, TOKEN, "EV_ROOTS").compose(r -> calls.lastToolResult(id, TOKEN)))
      .map(result -> {
        ctx.verify(() -> assertTrue(result.contains("file:///srv/data"), result));
        return null;
      }).onComplete(ctx.succeedingThenComplete());
  }
}
