package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Addresses;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.dispatch.DispatcherOptions;
import io.agentbus.dispatch.ToolDispatcher;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelOptions;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Provider;
import io.agentbus.model.Usage;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The loop against a scripted in-process model: maxIterations, the pinned tool set, the turn's budget. */
@ExtendWith(VertxExtension.class)
class TurnRunnerTest {

  /** A model whose reply is a function of the request; it records what it was sent. */
  static final class ScriptedModel implements ModelClient {
    record Seen(JsonArray messages, JsonArray tools, JsonObject toolChoice) {
    }

    final List<Seen> seen = new CopyOnWriteArrayList<>();
    final AtomicInteger streamed = new AtomicInteger();
    final Function<ModelRequest, JsonArray> script;

    ScriptedModel(Function<ModelRequest, JsonArray> script) {
      this.script = script;
    }

    @Override
    public Provider provider() {
      return Provider.ANTHROPIC;
    }

    @Override
    public Future<ModelResponse> send(ModelRequest request) {
      seen.add(new Seen(request.getMessages().copy(), request.getTools().copy(),
        request.getToolChoice() == null ? null : request.getToolChoice().copy()));
      JsonArray content = script.apply(request);
      boolean tools = content.stream().anyMatch(b -> "tool_use".equals(((JsonObject) b).getString("type")));
      return Future.succeededFuture(new ModelResponse("msg_" + seen.size(), "mock", content, tools ? "tool_use" : "end_turn",
        null, null, new Usage(10, 5, 0, 0), null, new JsonObject()));
    }

    @Override
    public Future<ModelResponse> stream(ModelRequest request, Handler<ModelStreamEvent> handler) {
      streamed.incrementAndGet();
      return send(request);
    }

    @Override
    public Future<Void> close() {
      return Future.succeededFuture();
    }
  }

  static JsonObject toolUse(String id, String name) {
    return new JsonObject().put("type", "tool_use").put("id", id).put("name", name).put("input", new JsonObject());
  }

  static JsonObject text(String text) {
    return new JsonObject().put("type", "text").put("text", text);
  }

  static JsonObject def(String name) {
    return new JsonObject().put("name", name).put("inputSchema", new JsonObject().put("type", "object"));
  }

  static CatalogSnapshot snapshot(long version, String... tools) {
    List<JsonObject> defs = new ArrayList<>();
    for (String t : tools) {
      defs.add(def(t));
    }
    return CatalogSnapshot.build(version, Map.of("srv", defs), null);
  }

  static List<String> names(JsonArray tools) {
    return tools.stream().map(t -> ((JsonObject) t).getString("name")).toList();
  }

  /** Runs one turn on a context of its own; completes with the result. */
  static Future<JsonObject> turn(Vertx vertx, TurnRunner runner, Conversation c, String userText) {
    return turn(vertx, runner, c, userText, true);
  }

  static Future<JsonObject> turn(Vertx vertx, TurnRunner runner, Conversation c, String userText, boolean watched) {
    Promise<JsonObject> p = Promise.promise();
    vertx.getOrCreateContext().runOnContext(v -> runner.run(c, userText, new TurnEvents(vertx.eventBus(), c.id(), null), watched)
      .onComplete(p));
    return p.future();
  }

  @Test
  void anUnwatchedTurnAsksForWholeRepliesOnlyWhenOneFitsTheInactivityTimeout(Vertx vertx, VertxTestContext ctx) {
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1));
    // {maxTokens, requestTimeoutMs, watched, streamed calls expected}
    long[][] cases = {{4096, 600_000, 0, 0}, {21_333, 600_000, 0, 0}, {21_334, 600_000, 0, 1}, {4096, 30_000, 0, 1},
      {4096, 600_000, 1, 1}};
    List<Future<Integer>> runs = new ArrayList<>();
    for (long[] k : cases) {
      ScriptedModel model = new ScriptedModel(req -> new JsonArray().add(text("hi")));
      ConversationOptions options = new ConversationOptions().setMaxTokens((int) k[0])
        .setModel(new ModelOptions().setRequestTimeoutMs(k[1]));
      TurnRunner runner = new TurnRunner(vertx, model, options, catalog, new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
      runs.add(turn(vertx, runner, new Conversation("w" + runs.size(), null, null, ToolSelection.ALL), "hello", k[2] == 1)
        .map(result -> model.streamed.get()));
    }
    Future.all(runs).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
      for (int i = 0; i < cases.length; i++) {
        assertEquals((int) cases[i][3], runs.get(i).result(), "case " + i);
      }
      ctx.completeNow();
    })));
  }

  /** Every tool_use is answered by a tool_result with its id at the start of the very next message. */
  static void assertPaired(List<JsonObject> messages) {
    for (int i = 0; i < messages.size(); i++) {
      JsonObject m = messages.get(i);
      if (!"assistant".equals(m.getString("role"))) {
        continue;
      }
      List<String> ids = m.getJsonArray("content").stream().map(b -> (JsonObject) b)
        .filter(b -> "tool_use".equals(b.getString("type"))).map(b -> b.getString("id")).toList();
      if (ids.isEmpty()) {
        continue;
      }
      assertTrue(i + 1 < messages.size(), "tool_use in the last message is unanswered");
      JsonArray next = messages.get(i + 1).getJsonArray("content");
      for (int k = 0; k < ids.size(); k++) {
        assertEquals("tool_result", next.getJsonObject(k).getString("type"));
        assertEquals(ids.get(k), next.getJsonObject(k).getString("tool_use_id"));
      }
    }
  }

  private static void echoServer(Vertx vertx, List<JsonObject> bodies) {
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("srv"), m -> {
      bodies.add(m.body());
      m.reply(new JsonObject().put("content", new JsonArray().add(text("ran " + m.body().getString("name")))));
    });
  }

  @Test
  void maxIterationsEndsWithAToolFreeCallWhoseAnswerSaysItStopped(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> bodies = new CopyOnWriteArrayList<>();
    echoServer(vertx, bodies);
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1, "work"));
    int[] n = {0};
    ScriptedModel model = new ScriptedModel(req -> req.getToolChoice() != null
      ? new JsonArray().add(text("I stopped before finishing: two steps of work are done."))
      : new JsonArray().add(toolUse("toolu_" + (++n[0]), "mcp__srv__work")));
    ConversationOptions options = new ConversationOptions().setMaxIterations(2).setStream(false);
    TurnRunner runner = new TurnRunner(vertx, model, options, catalog, new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
    Conversation c = new Conversation("c1", null, null, ToolSelection.ALL);
    turn(vertx, runner, c, "work forever").onComplete(ctx.succeeding(result -> ctx.verify(() -> {
      assertEquals("max_iterations", result.getString("status"));
      assertEquals("I stopped before finishing: two steps of work are done.", result.getString("answer"));
      assertEquals(3, model.seen.size(), "two loop calls and the final one");
      assertEquals(2, bodies.size(), "no tool runs after the limit");
      ScriptedModel.Seen last = model.seen.get(2);
      assertEquals(new JsonObject().put("type", "none"), last.toolChoice());
      assertNull(model.seen.get(0).toolChoice());
      JsonArray noted = last.messages().getJsonObject(last.messages().size() - 1).getJsonArray("content");
      assertEquals("tool_result", noted.getJsonObject(0).getString("type"));
      assertTrue(noted.getJsonObject(1).getString("text").contains("maxIterations"), noted::encode);
      List<JsonObject> h = c.history();
      assertEquals(6, h.size(), "user, 2 x (tool_use, tool_result), final answer");
      assertEquals("assistant", h.get(5).getString("role"));
      assertPaired(h);
      ctx.completeNow();
    })));
  }

  @Test
  void aFinalReplyWithoutTextStillSaysTheTurnStoppedAndLeavesNoToolUseUnanswered(Vertx vertx, VertxTestContext ctx) {
    echoServer(vertx, new CopyOnWriteArrayList<>());
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1, "work"));
    int[] n = {0};
    ScriptedModel model = new ScriptedModel(req -> new JsonArray().add(toolUse("toolu_" + (++n[0]), "mcp__srv__work")));
    TurnRunner runner = new TurnRunner(vertx, model, new ConversationOptions().setMaxIterations(1).setStream(false), catalog,
      new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
    Conversation c = new Conversation("c2", null, null, ToolSelection.ALL);
    turn(vertx, runner, c, "go").onComplete(ctx.succeeding(result -> ctx.verify(() -> {
      assertEquals("max_iterations", result.getString("status"));
      assertTrue(result.getString("answer").contains("stopped"), result.getString("answer"));
      assertPaired(c.history());
      JsonObject lastResult = c.history().get(c.history().size() - 1).getJsonArray("content").getJsonObject(0);
      assertTrue(lastResult.getBoolean("is_error"));
      ctx.completeNow();
    })));
  }

  @Test
  void eachToolCallNamesItsCallerSoTheServerCanRouteItToTheRightConnectionAndUser(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> bodies = new CopyOnWriteArrayList<>();
    echoServer(vertx, bodies);
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1, "work"));
    ScriptedModel model = new ScriptedModel(req -> req.getMessages().size() > 1
      ? new JsonArray().add(text("done"))
      : new JsonArray().add(toolUse("toolu_t1", "mcp__srv__work")));
    TurnRunner runner = new TurnRunner(vertx, model, new ConversationOptions().setStream(false), catalog,
      new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
    Conversation owned = new Conversation("c-acme", "acme", null, ToolSelection.ALL);
    Conversation shared = new Conversation("c-none", null, null, ToolSelection.ALL);
    turn(vertx, runner, owned, "work").compose(r -> turn(vertx, runner, shared, "work")).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(2, bodies.size());
      assertEquals("acme", bodies.get(0).getString("tenant"));
      assertEquals("c-acme", bodies.get(0).getString("conversationId"));
      assertEquals("toolu_t1", bodies.get(0).getString("toolUseId"));
      assertFalse(bodies.get(1).containsKey("tenant"), "no tenant without authentication");
      assertEquals("c-none", bodies.get(1).getString("conversationId"));
      ctx.completeNow();
    })));
  }

  @Test
  void theToolSetIsPinnedForTheWholeTurnAndChangesApplyFromTheNextTurn(Vertx vertx, VertxTestContext ctx) {
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1, "alpha"));
    vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp("srv"), m -> {
      if (catalog.current().version() == 1) {
        catalog.publish(snapshot(2, "alpha", "beta")); // the catalog changes while the turn runs
      }
      m.reply(new JsonObject().put("content", new JsonArray().add(text("ok"))));
    });
    ScriptedModel model = new ScriptedModel(req -> {
      boolean afterTool = req.getMessages().size() > 1
        && "user".equals(req.getMessages().getJsonObject(req.getMessages().size() - 1).getString("role"))
        && req.getMessages().getJsonObject(req.getMessages().size() - 1).getValue("content") instanceof JsonArray;
      return afterTool ? new JsonArray().add(text("done")) : new JsonArray().add(toolUse("toolu_a", "mcp__srv__alpha"));
    });
    TurnRunner runner = new TurnRunner(vertx, model, new ConversationOptions().setStream(false), catalog,
      new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
    Conversation c = new Conversation("c3", null, null, ToolSelection.ALL);
    turn(vertx, runner, c, "first").compose(first -> turn(vertx, runner, c, "second").map(second -> List.of(first, second)))
      .onComplete(ctx.succeeding(results -> ctx.verify(() -> {
        assertEquals("end_turn", results.get(0).getString("status"));
        assertEquals(List.of("mcp__srv__alpha"), names(model.seen.get(0).tools()));
        assertEquals(List.of("mcp__srv__alpha"), names(model.seen.get(1).tools()), "same tools for the whole turn");
        assertEquals(List.of("mcp__srv__alpha", "mcp__srv__beta"), names(model.seen.get(2).tools()), "the next turn sees the change");
        ctx.completeNow();
      })));
  }

  @Test
  void eachToolCallGetsWhatIsLeftOfTheTurnAsItsBudget(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> bodies = new CopyOnWriteArrayList<>();
    echoServer(vertx, bodies);
    ToolCatalog catalog = new ToolCatalog();
    catalog.publish(snapshot(1, "work"));
    ScriptedModel model = new ScriptedModel(req -> req.getMessages().size() == 1
      ? new JsonArray().add(toolUse("toolu_1", "mcp__srv__work")) : new JsonArray().add(text("done")));
    ConversationOptions options = new ConversationOptions().setStream(false).setTurnTimeoutMs(5_000).setToolTimeoutMs(60_000L);
    TurnRunner runner = new TurnRunner(vertx, model, options, catalog, new ToolDispatcher(vertx, catalog, new DispatcherOptions()));
    turn(vertx, runner, new Conversation("c4", null, null, ToolSelection.ALL), "go").onComplete(ctx.succeeding(result -> ctx.verify(() -> {
      assertEquals("done", result.getString("answer"));
      long budget = bodies.get(0).getLong("budgetMs");
      assertTrue(budget > 4_000 && budget <= 5_000, "budget " + budget);
      assertEquals(budget, bodies.get(0).getLong("timeoutMs"), "the tool timeout never exceeds the turn's time left");
      ctx.completeNow();
    })));
  }
}
