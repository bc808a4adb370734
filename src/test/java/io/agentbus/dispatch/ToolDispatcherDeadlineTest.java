package io.agentbus.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.agentbus.testing.InMemoryMcpServer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One deadline from the dispatch to the MCP request, honest failure texts (never started vs
 * outcome unknown), and progress as turn events.
 */
@ExtendWith(VertxExtension.class)
class ToolDispatcherDeadlineTest {

  private static JsonObject def(String name) {
    return new JsonObject().put("name", name).put("inputSchema", new JsonObject().put("type", "object"));
  }

  private static ToolCatalog catalog(String server, String... tools) {
    List<JsonObject> defs = new ArrayList<>();
    for (String t : tools) {
      defs.add(def(t));
    }
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(CatalogSnapshot.build(1, Map.of(server, defs), null));
    return catalog;
  }

  private static JsonObject use(String id, String name) {
    return new JsonObject().put("type", "tool_use").put("id", id).put("name", name).put("input", new JsonObject());
  }

  private static DispatchRequest request(JsonObject extra, JsonObject... uses) {
    JsonObject body = new JsonObject().put("provider", "anthropic").put("content", new JsonArray(List.of((Object[]) uses)));
    return DispatchRequest.parse(extra.mergeIn(body));
  }

  private static String text(JsonObject toolResult) {
    return toolResult.getJsonArray("content").getJsonObject(0).getString("text");
  }

  @Test
  void theBudgetTravelsWithEveryCallAndTheBusWaitsOnlyALittleLonger(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> bodies = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("srv"), m -> bodies.add(m.body())); // never answers
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, catalog("srv", "hang"),
      new DispatcherOptions().setSendTimeoutMarginMs(100));
    long start = System.nanoTime();
    dispatcher.dispatch(request(new JsonObject().put("timeoutMs", 30_000).put("budgetMs", 400), use("t1", "mcp__srv__hang")))
      .onComplete(ctx.succeeding(msg -> ctx.verify(() -> {
        long took = (System.nanoTime() - start) / 1_000_000L;
        assertTrue(took >= 450 && took < 5_000, "took " + took + " ms");
        assertEquals(400L, bodies.get(0).getLong("budgetMs"));
        assertEquals(400L, bodies.get(0).getLong("timeoutMs"), "the timeout is never longer than the budget");
        JsonObject result = msg.getJsonArray("content").getJsonObject(0);
        assertTrue(result.getBoolean("is_error"));
        assertTrue(text(result).contains("the server may still complete it — check before retrying"), text(result));
        ctx.completeNow();
      })));
  }

  @Test
  void failuresSayWhetherTheToolRanAndSuccessesAreKept(Vertx vertx, VertxTestContext ctx) {
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("srv"), m -> {
      switch (m.body().getString("name")) {
        case "ok" -> m.reply(new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", "fine"))));
        case "queued" -> m.fail(FailureCodes.TIMEOUT, McpServerVerticle.NOT_STARTED + "server 'srv': no call slot became free within 300 ms");
        case "slow" -> m.fail(FailureCodes.TIMEOUT, "tools/call to server 'srv' timed out after 300 ms");
        case "crash" -> m.fail(FailureCodes.UNAVAILABLE, "server 'srv' exited (code 137)");
        case "restarting" -> m.fail(FailureCodes.UNAVAILABLE, McpServerVerticle.NOT_STARTED + "server 'srv' is down: boom");
        default -> m.fail(FailureCodes.INTERNAL, "unexpected");
      }
    });
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, catalog("srv", "ok", "queued", "slow", "crash", "restarting"),
      new DispatcherOptions());
    dispatcher.dispatch(request(new JsonObject(), use("a", "mcp__srv__ok"), use("b", "mcp__srv__queued"),
        use("c", "mcp__srv__slow"), use("d", "mcp__srv__crash"), use("e", "mcp__srv__restarting")))
      .onComplete(ctx.succeeding(msg -> ctx.verify(() -> {
        JsonArray content = msg.getJsonArray("content");
        assertFalse(content.getJsonObject(0).getBoolean("is_error"));
        assertEquals("fine", text(content.getJsonObject(0)));
        assertTrue(text(content.getJsonObject(1)).startsWith("The tool was not run"), text(content.getJsonObject(1)));
        assertTrue(text(content.getJsonObject(1)).contains("Nothing was executed"), text(content.getJsonObject(1)));
        assertTrue(text(content.getJsonObject(2)).matches("The tool call timed out after \\d+ ms; the server may still complete it — "
          + "check before retrying a call that changes something\\."), text(content.getJsonObject(2)));
        assertTrue(text(content.getJsonObject(3)).contains("may or may not have taken effect"), text(content.getJsonObject(3)));
        assertTrue(text(content.getJsonObject(4)).startsWith("The tool was not run (server 'srv' is down: boom)"),
          text(content.getJsonObject(4)));
        ctx.completeNow();
      })));
  }

  @Test
  void aBatchWhoseDeadlinePassedRunsNothing(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> bodies = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("srv"), m -> bodies.add(m.body()));
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, catalog("srv", "ok"), new DispatcherOptions());
    dispatcher.dispatch(request(new JsonObject().put("budgetMs", 0), use("a", "mcp__srv__ok")))
      .onComplete(ctx.succeeding(msg -> ctx.verify(() -> {
        assertTrue(bodies.isEmpty());
        assertTrue(text(msg.getJsonArray("content").getJsonObject(0)).startsWith("The tool was not run"));
        ctx.completeNow();
      })));
  }

  @Test
  void progressReachesTheTurnsEventsThrottled(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("work").tool("crunch", (v, call) -> {
      for (int i = 1; i <= 100; i++) {
        call.progress(i, 200.0, i == 100 ? "half way" : null); // a flood
      }
      v.setTimer(600, t -> {
        call.progress(200, 200.0, "all done");
        v.setTimer(50, t2 -> call.text("crunched"));
      });
    });
    String events = "test.events.progress";
    List<JsonObject> progress = new CopyOnWriteArrayList<>();
    List<String> order = new CopyOnWriteArrayList<>();
    vertx.eventBus().<JsonObject>consumer(events, m -> {
      order.add(m.body().getString("type"));
      if ("tool_call_progress".equals(m.body().getString("type"))) {
        progress.add(m.body());
      }
    });
    McpServerOptions options = new McpServerOptions().setName("work").setCommand("unused-in-memory");
    vertx.deployVerticle(new McpServerVerticle(server.transports(), 3_000), new DeploymentOptions().setConfig(options.toJson()))
      .compose(id -> new ToolDispatcher(vertx, catalog("work", "crunch"), new DispatcherOptions())
        .dispatch(request(new JsonObject().put("eventsAddress", events).put("eventFields", new JsonObject().put("conversationId", "c1")),
          use("toolu_1", "mcp__work__crunch"))))
      .onComplete(ctx.succeeding(msg -> ctx.verify(() -> {
        assertEquals("crunched", text(msg.getJsonArray("content").getJsonObject(0)));
        assertTrue(progress.size() >= 2 && progress.size() <= 5, "throttled: " + progress.size() + " of 101 updates");
        JsonObject first = progress.get(0);
        assertEquals("c1", first.getString("conversationId"));
        assertEquals("toolu_1", first.getString("tool_use_id"));
        assertEquals("mcp__work__crunch", first.getString("name"));
        assertEquals(200.0, first.getDouble("total"));
        JsonObject last = progress.get(progress.size() - 1);
        assertEquals(200.0, last.getDouble("progress"));
        assertEquals("all done", last.getString("message"));
        assertEquals("tool_call_started", order.get(0));
        ctx.completeNow();
      })));
  }
}
