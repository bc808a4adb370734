package io.agentbus.dispatch;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.catalog.CatalogVerticle;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.LogCapture;
import io.agentbus.testing.ScriptedToolServer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The dispatcher against real MCP server verticles: server-everything and a scripted server. */
@Integration
@ExtendWith(VertxExtension.class)
class DispatcherVerticleTest {

  private static final ToolCatalog catalog = new ToolCatalog();
  @RegisterExtension
  static final LogCapture.Lines logs = LogCapture.perClass();

  @BeforeAll
  static void deploy(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions scripted = InteropServers.javaMain("scripted", ScriptedToolServer.class);
    Future.all(server(vertx, InteropServers.everythingStdio("everything")), server(vertx, scripted))
      .compose(v -> vertx.deployVerticle(new CatalogVerticle(catalog, List.of("everything", "scripted"))))
      .compose(v -> vertx.deployVerticle(new DispatcherVerticle(catalog, null)))
      .onComplete(ctx.succeedingThenComplete());
  }

  @AfterAll
  static void noBlockedThreads() {
    assertTrue(logs.contains("[everything] ready: "), "the servers' start was not captured: the check below would prove nothing");
    assertFalse(logs.contains("has been blocked for"), "a Vert.x thread was blocked");
  }

  private static Future<String> server(Vertx vertx, McpServerOptions options) {
    return vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(options.toJson()));
  }

  private static JsonObject toolUse(String id, String name, JsonObject input) {
    return new JsonObject().put("type", "tool_use").put("id", id).put("name", name).put("input", input);
  }

  private static JsonObject request(String provider, JsonObject... blocks) {
    return new JsonObject().put("provider", provider).put("catalogVersion", catalog.current().version())
      .put("content", new JsonArray(List.of((Object[]) blocks)));
  }

  private static Future<JsonObject> dispatch(Vertx vertx, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.DISPATCH, body,
      new DeliveryOptions().addHeader(Actions.HEADER, Actions.DISPATCH).setSendTimeout(60_000)).map(m -> m.body());
  }

  private static String text(JsonObject toolResult) {
    StringBuilder sb = new StringBuilder();
    toolResult.getJsonArray("content").stream().map(b -> (JsonObject) b).filter(b -> "text".equals(b.getString("type")))
      .forEach(b -> sb.append(b.getString("text")));
    return sb.toString();
  }

  @Test
  void aMixedBatchAnswersEveryIdOnceInOrder(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> events = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>localConsumer("test.events.mixed", m -> events.add(m.body()));
    JsonObject body = request("anthropic",
      new JsonObject().put("type", "text").put("text", "Let me run these."),
      toolUse("t1", "mcp__everything__echo", new JsonObject().put("message", "hi")),
      toolUse("t2", "mcp__scripted__fail", new JsonObject()),
      toolUse("t3", "mcp__nowhere__nothing", new JsonObject()),
      toolUse("t4", "mcp__scripted__sleep", new JsonObject().put("ms", 30_000)),
      toolUse("t5", "mcp__everything__echo", new JsonObject().put("message", 42)),
      toolUse("t6", "mcp__everything__echo", new JsonObject()).put("_invalid_arguments", "{\"message\": hi"),
      toolUse("t7", "mcp__scripted__rpc_error", new JsonObject()),
      toolUse("t8", "mcp__everything__get-tiny-image", new JsonObject()),
      toolUse("t9", "mcp__scripted__admin_tools_list", new JsonObject().put("user", "ann")),
      toolUse("t10", "mcp__scripted__count", new JsonObject().put("n", 0)),
      new JsonObject().put("type", "thinking").put("thinking", "hm").put("signature", "s"))
      .put("timeoutMs", 2_000).put("eventsAddress", "test.events.mixed");
    dispatch(vertx, body).onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
      assertEquals("user", reply.getString("role"));
      JsonArray content = reply.getJsonArray("content");
      assertEquals(10, content.size());
      boolean[] expectedError = {false, true, true, true, true, true, true, false, false, true};
      for (int i = 0; i < content.size(); i++) {
        JsonObject r = content.getJsonObject(i);
        assertEquals("tool_result", r.getString("type"));
        assertEquals("t" + (i + 1), r.getString("tool_use_id"));
        assertEquals(expectedError[i], r.getBoolean("is_error"), r.encode());
      }
      assertEquals("Echo: hi", text(content.getJsonObject(0)));
      assertTrue(text(content.getJsonObject(1)).contains("scripted failure"));
      assertTrue(text(content.getJsonObject(2)).startsWith("Unknown tool 'mcp__nowhere__nothing'"));
      assertTrue(text(content.getJsonObject(3)).contains("timed out"), text(content.getJsonObject(3)));
      assertTrue(text(content.getJsonObject(4)).contains("Invalid arguments for 'mcp__everything__echo'"));
      assertTrue(text(content.getJsonObject(4)).contains("/message"));
      assertTrue(text(content.getJsonObject(5)).contains("not valid JSON"));
      assertTrue(text(content.getJsonObject(6)).contains("scripted internal error"), text(content.getJsonObject(6)));
      assertTrue(content.getJsonObject(7).getJsonArray("content").stream()
        .anyMatch(b -> "image".equals(((JsonObject) b).getString("type"))));
      assertTrue(text(content.getJsonObject(8)).contains("listed {\"user\":\"ann\"}"));
      assertTrue(text(content.getJsonObject(9)).contains("/n: "), text(content.getJsonObject(9)));
      long started = events.stream().filter(e -> "tool_call_started".equals(e.getString("type"))).count();
      List<JsonObject> finished = events.stream().filter(e -> "tool_call_finished".equals(e.getString("type"))).toList();
      assertEquals(10, started);
      assertEquals(10, finished.size());
      assertTrue(finished.stream().allMatch(e -> e.getLong("duration_ms") >= 0 && e.containsKey("is_error")));
      ctx.completeNow();
    })));
  }

  @Test
  void kCallsAreHeldByTheServerAtOnce(Vertx vertx, VertxTestContext ctx) {
    int k = 6;
    JsonObject[] uses = new JsonObject[k];
    for (int i = 0; i < k; i++) {
      uses[i] = toolUse("b" + i, "mcp__scripted__barrier", new JsonObject().put("expect", k));
    }
    dispatch(vertx, request("anthropic", uses)).onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
      JsonArray content = reply.getJsonArray("content");
      assertEquals(k, content.size());
      for (int i = 0; i < k; i++) {
        assertEquals("b" + i, content.getJsonObject(i).getString("tool_use_id"));
        assertEquals("maxInFlight=" + k, text(content.getJsonObject(i)));
      }
      ctx.completeNow();
    })));
  }

  @Test
  void duplicateIdsAreRejectedAndNothingRuns(Vertx vertx, VertxTestContext ctx) {
    JsonObject body = request("anthropic",
      toolUse("same", "mcp__everything__echo", new JsonObject().put("message", "a")),
      toolUse("same", "mcp__everything__echo", new JsonObject().put("message", "b")));
    dispatch(vertx, body).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ReplyException re = assertInstanceOf(ReplyException.class, err);
      assertEquals(FailureCodes.BAD_REQUEST, re.failureCode());
      assertTrue(re.getMessage().contains("duplicate tool_use ids [same]"), re.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void malformedRequestsAreBadRequests(Vertx vertx, VertxTestContext ctx) {
    var check = ctx.checkpoint(3);
    List<JsonObject> bodies = List.of(
      request("gemini", toolUse("x", "mcp__everything__echo", new JsonObject())),
      request("openai", new JsonObject().put("type", "text").put("text", "no tools")),
      request("openai", new JsonObject().put("type", "tool_use").put("name", "mcp__everything__echo")));
    for (JsonObject body : bodies) {
      dispatch(vertx, body).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.BAD_REQUEST, ((ReplyException) err).failureCode());
        check.flag();
      })));
    }
  }

  @Test
  void forOpenAiEveryBlockIsText(Vertx vertx, VertxTestContext ctx) {
    dispatch(vertx, request("openai", toolUse("m", "mcp__scripted__media", new JsonObject())))
      .onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
        JsonObject result = reply.getJsonArray("content").getJsonObject(0);
        assertFalse(result.getBoolean("is_error"));
        assertTrue(result.getJsonArray("content").stream().allMatch(b -> "text".equals(((JsonObject) b).getString("type"))));
        String text = text(result);
        assertTrue(text.contains("[image image/png") && text.contains("embedded note") && text.contains("[resource link: a.txt"), text);
        ctx.completeNow();
      })));
  }

  @Test
  void aToolThatVanishedSinceTheModelSawItIsNoLongerAvailable(Vertx vertx, VertxTestContext ctx) {
    long seen = catalog.current().version();
    assertNotNull(catalog.current().byName("mcp__scripted__big"));
    Promise<Void> dropped = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.CATALOG_CHANGED, m -> {
      if (!m.body().getJsonArray("tools").contains("mcp__scripted__big")) {
        dropped.tryComplete();
      }
    });
    consumer.completion()
      .compose(v -> dispatch(vertx, request("anthropic", toolUse("d", "mcp__scripted__drop", new JsonObject().put("name", "big")))))
      .compose(v -> dropped.future())
      .compose(v -> dispatch(vertx, request("anthropic", toolUse("g", "mcp__scripted__big", new JsonObject().put("chars", 10)))
        .put("catalogVersion", seen)))
      .onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
        JsonObject result = reply.getJsonArray("content").getJsonObject(0);
        assertTrue(result.getBoolean("is_error"));
        assertEquals("Tool 'mcp__scripted__big' is no longer available: its server no longer offers it.", text(result));
        consumer.unregister();
        ctx.completeNow();
      })));
  }

  @Test
  void aServerWithoutAVerticleIsReportedNotRunning(Vertx vertx, VertxTestContext ctx) {
    Promise<Void> added = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.CATALOG_CHANGED, m -> {
      if (m.body().getJsonArray("tools").contains("mcp__ghost__boo")) {
        added.tryComplete();
      }
    });
    consumer.completion()
      .onSuccess(v -> vertx.eventBus().publish(Addresses.MCP_TOOLS_CHANGED_ALL, new JsonObject().put("server", "ghost")
        .put("tools", new JsonArray().add(new JsonObject().put("name", "boo").put("inputSchema", new JsonObject().put("type", "object"))))))
      .compose(v -> added.future())
      .compose(v -> dispatch(vertx, request("anthropic", toolUse("g", "mcp__ghost__boo", new JsonObject()))))
      .onComplete(ctx.succeeding(reply -> ctx.verify(() -> {
        JsonObject result = reply.getJsonArray("content").getJsonObject(0);
        assertTrue(result.getBoolean("is_error"));
        assertEquals("The tool was not run: its server 'ghost' is not running.", text(result));
        consumer.unregister();
        ctx.completeNow();
      })));
  }

  @Test
  void theCatalogAnswersGetOnTheBus(Vertx vertx, VertxTestContext ctx) {
    DeliveryOptions get = new DeliveryOptions().addHeader(Actions.HEADER, Actions.CATALOG_GET);
    vertx.eventBus().<JsonObject>request(Addresses.CATALOG, new JsonObject().put("provider", "anthropic"), get)
      .compose(m -> {
        JsonObject snapshot = m.body();
        ctx.verify(() -> {
          assertEquals(catalog.current().version(), snapshot.getLong("version"));
          assertTrue(snapshot.getJsonArray("tools").stream()
            .anyMatch(t -> "mcp__everything__echo".equals(((JsonObject) t).getString("name"))));
        });
        return vertx.eventBus().<JsonObject>request(Addresses.CATALOG, new JsonObject().put("version", -5), get);
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.NOT_FOUND, ((ReplyException) err).failureCode());
        ctx.completeNow();
      })));
  }
}
