package io.agentbus.conversation;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The agent loop end to end over real HTTP and real stdio: the mock model server (script
 * mode, one script per conversation picked by a keyword of the first user message) and the
 * real server-everything behind the server verticle, catalog and dispatcher.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ConversationLoopTest {

  static final String ECHO = "mcp__everything__echo";
  static final String SUM = "mcp__everything__get-sum";

  static MockModelServer mock;
  static Agentbus agentbus;

  static JsonObject toolUse(String name, JsonObject input) {
    return new JsonObject().put("type", "tool_use").put("name", name).put("input", input);
  }

  static JsonObject text(String text) {
    return new JsonObject().put("type", "text").put("text", text);
  }

  static JsonObject reply(String stop, JsonObject... blocks) {
    JsonObject r = new JsonObject().put("content", new JsonArray(List.of((Object[]) blocks)));
    return stop == null ? r : r.put("stop_reason", stop);
  }

  static JsonObject script(String match, JsonObject... replies) {
    return new JsonObject().put("match", match).put("replies", new JsonArray(List.of((Object[]) replies)));
  }

  static JsonObject scripts() {
    JsonObject twoTools = reply(null, text("Let me check both."),
      toolUse(ECHO, new JsonObject().put("message", "hello")),
      toolUse(SUM, new JsonObject().put("a", 2).put("b", 3)));
    return new JsonObject().put("conversations", new JsonArray()
      .add(script("PARALLEL", twoTools, new JsonObject().put("text", "Echo said hello and 2+3=5.")))
      .add(script("STOPSEQ", reply("stop_sequence", text("stopped here"))))
      .add(script("TRUNCATED", reply("max_tokens", text("I will call"), toolUse(ECHO, new JsonObject()))))
      .add(script("PAUSE", reply("pause_turn", text("working...")), new JsonObject().put("text", "resumed and done")))
      .add(script("REFUSE", reply("refusal", text("I can't help with that."))))
      .add(script("WEIRD", reply("galaxy_brain", text("?"))))
      .add(script("LOOP", loop(12)))
      .add(script("BADARGS", reply(null, toolUse(ECHO, new JsonObject().put("message", 42)),
        toolUse("mcp__everything__no_such_tool", new JsonObject())), new JsonObject().put("text", "ok")))
      .add(script("TWOTURNS", new JsonObject().put("text", "first answer"), new JsonObject().put("text", "second answer"))));
  }

  static JsonObject[] loop(int n) {
    JsonObject[] replies = new JsonObject[n];
    for (int i = 0; i < n; i++) {
      replies[i] = reply(null, toolUse(ECHO, new JsonObject().put("message", "round " + i)));
    }
    return replies;
  }

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(scripts()))
      .compose(m -> {
        mock = m;
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + m.actualPort()).setModel("mock-model");
        return Agentbus.deploy(vertx, new AgentbusOptions()
          .addMcpServer(InteropServers.everythingStdio("everything"))
          .setConversationInstances(2)
          .setConversation(new ConversationOptions().setModel(model).setSystem("You are a test.").setMaxIterations(5)));
      })
      .onComplete(ctx.succeeding(a -> {
        agentbus = a;
        ctx.completeNow();
      }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    agentbus.close().eventually(() -> mock.close()).onComplete(ctx.succeedingThenComplete());
  }

  static Future<JsonObject> turn(String userText) {
    return agentbus.createConversation(new JsonObject()).compose(id -> agentbus.send(id, userText));
  }

  static Future<JsonArray> history(JsonObject result) {
    return agentbus.get(result.getString("conversationId")).map(c -> c.getJsonArray("messages"));
  }

  /** Every tool_use is answered by a tool_result with its id in the very next message. */
  static void assertPaired(JsonArray messages) {
    for (int i = 0; i < messages.size(); i++) {
      JsonObject m = messages.getJsonObject(i);
      if (!"assistant".equals(m.getString("role"))) {
        continue;
      }
      List<String> ids = new ArrayList<>();
      m.getJsonArray("content").forEach(b -> {
        if ("tool_use".equals(((JsonObject) b).getString("type"))) {
          ids.add(((JsonObject) b).getString("id"));
        }
      });
      if (ids.isEmpty()) {
        continue;
      }
      JsonArray next = messages.getJsonObject(i + 1).getJsonArray("content");
      assertEquals("user", messages.getJsonObject(i + 1).getString("role"));
      for (int k = 0; k < ids.size(); k++) {
        assertEquals("tool_result", next.getJsonObject(k).getString("type"));
        assertEquals(ids.get(k), next.getJsonObject(k).getString("tool_use_id"));
      }
    }
  }

  @Test
  void parallelToolsComeBackAsOneUserMessageThenEndTurn(Vertx vertx, VertxTestContext ctx) {
    turn("PARALLEL: echo hello and add 2 and 3").compose(result -> history(result).map(h -> List.of(result, h)))
      .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
        JsonObject result = (JsonObject) both.get(0);
        JsonArray h = (JsonArray) both.get(1);
        assertEquals("end_turn", result.getString("status"));
        assertEquals("Echo said hello and 2+3=5.", result.getString("answer"));
        assertEquals(2, result.getInteger("iterations"));
        assertEquals(2, result.getJsonArray("toolCalls").size());
        assertEquals(4, h.size());
        JsonArray results = h.getJsonObject(2).getJsonArray("content");
        assertEquals(2, results.size());
        assertEquals("Echo: hello", results.getJsonObject(0).getJsonArray("content").getJsonObject(0).getString("text"));
        assertTrue(results.getJsonObject(1).getJsonArray("content").getJsonObject(0).getString("text").contains("5"));
        assertFalse(results.getJsonObject(0).getBoolean("is_error", false));
        assertPaired(h);
        JsonObject usage = result.getJsonObject("usage").getJsonObject("turn");
        assertTrue(usage.getLong("input_tokens") > 0 && usage.getLong("output_tokens") > 0, usage::encode);
        ctx.completeNow();
      })));
  }

  @Test
  void stopSequenceEndsTheTurn(VertxTestContext ctx) {
    turn("STOPSEQ").onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals("stop_sequence", r.getString("status"));
      assertEquals("stopped here", r.getString("answer"));
      ctx.completeNow();
    })));
  }

  @Test
  void maxTokensIsTruncatedAndTheCutToolUseIsNeverRun(VertxTestContext ctx) {
    turn("TRUNCATED").compose(r -> history(r).map(h -> {
      ctx.verify(() -> {
        assertEquals("max_tokens", r.getString("status"));
        assertTrue(r.getBoolean("truncated"));
        assertEquals(0, r.getJsonArray("toolCalls").size());
        assertPaired(h);
        JsonObject answered = h.getJsonObject(2).getJsonArray("content").getJsonObject(0);
        assertTrue(answered.getBoolean("is_error"));
        assertTrue(answered.getJsonArray("content").getJsonObject(0).getString("text").contains("not executed"));
      });
      return h;
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void pauseTurnSendsTheContentBackAndContinues(VertxTestContext ctx) {
    turn("PAUSE").onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals("end_turn", r.getString("status"));
      assertEquals("resumed and done", r.getString("answer"));
      assertEquals(2, r.getInteger("iterations"));
      ctx.completeNow();
    })));
  }

  @Test
  void refusalIsAnsweredWithItsStatus(VertxTestContext ctx) {
    turn("REFUSE").onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals("refusal", r.getString("status"));
      assertEquals("I can't help with that.", r.getString("answer"));
      ctx.completeNow();
    })));
  }

  @Test
  void unknownStopReasonStopsAndSurfacesIt(VertxTestContext ctx) {
    turn("WEIRD").onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals("unknown_stop_reason", r.getString("status"));
      assertEquals("galaxy_brain", r.getString("stopReason"));
      ctx.completeNow();
    })));
  }

  @Test
  void maxIterationsEndsWithAToolFreeCallAndEveryToolUseAnswered(VertxTestContext ctx) {
    turn("LOOP").compose(r -> history(r).map(h -> {
      ctx.verify(() -> {
        assertEquals("max_iterations", r.getString("status"));
        // 5 loop calls, then one more with tool_choice none (the script ignores it and asks for a
        // tool again: that tool_use is answered, not run, and the answer still says the turn stopped)
        assertEquals(6, r.getInteger("iterations"));
        assertEquals(5, r.getJsonArray("toolCalls").size());
        assertTrue(r.getString("answer").contains("stopped"), r.getString("answer"));
        assertEquals(13, h.size());
        assertPaired(h);
      });
      return h;
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void invalidArgumentsAndUnknownToolsBecomeErrorResultsAndTheLoopGoesOn(VertxTestContext ctx) {
    turn("BADARGS").compose(r -> history(r).map(h -> {
      ctx.verify(() -> {
        assertEquals("end_turn", r.getString("status"));
        JsonArray results = h.getJsonObject(2).getJsonArray("content");
        assertTrue(results.getJsonObject(0).getBoolean("is_error"));
        assertTrue(results.getJsonObject(1).getBoolean("is_error"));
        assertTrue(r.getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));
        assertPaired(h);
      });
      return h;
    })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void theFullHistoryGoesWithEveryRequestAndUsageAccumulates(VertxTestContext ctx) {
    agentbus.createConversation(new JsonObject())
      .compose(id -> agentbus.send(id, "TWOTURNS one").compose(first -> agentbus.send(id, "and two").map(second -> List.of(first, second)))
        .compose(results -> agentbus.get(id).map(c -> {
          ctx.verify(() -> {
            assertEquals("first answer", results.get(0).getString("answer"));
            // the script serves reply 1 only to a history that already holds reply 0
            assertEquals("second answer", results.get(1).getString("answer"));
            assertEquals(4, c.getJsonArray("messages").size());
            assertEquals(2, c.getInteger("turns"));
            long total = results.get(0).getJsonObject("usage").getJsonObject("turn").getLong("output_tokens")
              + results.get(1).getJsonObject("usage").getJsonObject("turn").getLong("output_tokens");
            assertEquals(total, c.getJsonObject("usage").getLong("output_tokens"));
            assertEquals("You are a test.", c.getString("system"));
          });
          return c;
        })))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void turnEventsArePublished(Vertx vertx, VertxTestContext ctx) {
    agentbus.createConversation(new JsonObject()).onComplete(ctx.succeeding(id -> {
      List<String> types = new ArrayList<>();
      Promise<Void> done = Promise.promise();
      vertx.eventBus().<JsonObject>consumer(Addresses.conversationEvents(id), m -> {
        types.add(m.body().getString("type"));
        ctx.verify(() -> assertEquals(id, m.body().getString("conversationId"), m.body()::encode));
        if ("done".equals(m.body().getString("type"))) {
          done.tryComplete();
        }
      }).completion()
        .compose(v -> agentbus.send(id, "PARALLEL again"))
        .compose(r -> done.future())
        .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
          assertEquals("turn_started", types.get(0));
          assertTrue(types.contains("text_delta"), types::toString);
          assertEquals(2, types.stream().filter("tool_call_started"::equals).count(), types::toString);
          assertEquals(2, types.stream().filter("tool_call_finished"::equals).count(), types::toString);
          assertEquals(2, types.stream().filter("model_call"::equals).count(), types::toString);
          assertEquals("done", types.get(types.size() - 1));
          ctx.completeNow();
        })));
    }));
  }

  @Test
  void badRequestsOnTheBusAreRefusedClearly(VertxTestContext ctx) {
    agentbus.createConversation(new JsonObject())
      .compose(id -> agentbus.send(id, new JsonArray().add(new JsonObject().put("type", "tool_result").put("tool_use_id", "x"))))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        ReplyException re = assertInstanceOf(ReplyException.class, err);
        assertEquals(FailureCodes.BAD_REQUEST, re.failureCode());
        assertTrue(re.getMessage().contains("tool_result"));
        agentbus.get("c0-00000000000000000000000000000000").onComplete(ctx.failing(err2 -> ctx.verify(() -> {
          assertEquals(FailureCodes.NOT_FOUND, ((ReplyException) err2).failureCode());
          ctx.completeNow();
        })));
      })));
  }

  @Test
  void aStreamFlagThatIsNotABooleanIsRefusedAndChangesNothing(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> agentbus.createConversation(new JsonObject())
      .compose(id -> onShard(0, io.agentbus.bus.Actions.SEND, new JsonObject().put("id", id).put("content", "hello")
          .put("stream", "no"))
        .transform(sent -> onShard(0, io.agentbus.bus.Actions.GET, new JsonObject().put("id", id))
          .map(c -> new Object[] {sent.cause(), c})))
      .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
        ReplyException re = assertInstanceOf(ReplyException.class, r[0]);
        assertEquals(FailureCodes.BAD_REQUEST, re.failureCode());
        assertEquals("field 'stream' must be a boolean", re.getMessage());
        assertEquals(0, ((JsonObject) r[1]).getJsonArray("messages").size());
        ctx.completeNow();
      }))));
  }

  @Test
  void deleteForgetsTheConversation(VertxTestContext ctx) {
    agentbus.createConversation(new JsonObject())
      .compose(id -> agentbus.delete(id).compose(v -> agentbus.get(id)))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.NOT_FOUND, ((ReplyException) err).failureCode());
        ctx.completeNow();
      })));
  }

  private static Future<JsonObject> onShard(int shard, String action, JsonObject body) {
    return Vertx.currentContext().owner().eventBus().<JsonObject>request(Addresses.conversationShard(shard), body,
      new io.vertx.core.eventbus.DeliveryOptions().addHeader(io.agentbus.bus.Actions.HEADER, action)).map(m -> m.body());
  }

  @Test
  void anyInstanceRunsAnyConversationsTurn(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> onShard(0, io.agentbus.bus.Actions.CREATE, new JsonObject())
      .compose(created -> {
        String id = created.getString("id");
        return onShard(1, io.agentbus.bus.Actions.SEND, new JsonObject().put("id", id).put("content", "TWOTURNS"))
          .compose(first -> onShard(0, io.agentbus.bus.Actions.SEND, new JsonObject().put("id", id).put("content", "again"))
            .compose(second -> onShard(1, io.agentbus.bus.Actions.GET, new JsonObject().put("id", id))
              .map(c -> List.of(first, second, c))));
      })
      .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
        assertEquals("first answer", r.get(0).getString("answer"));
        assertEquals("second answer", r.get(1).getString("answer"));
        JsonObject c = r.get(2);
        assertEquals(4, c.getJsonArray("messages").size());
        assertEquals(2, c.getInteger("turns"));
        assertFalse(c.getBoolean("busy"));
        ctx.completeNow();
      }))));
  }

  @Test
  void oneTurnAtATimeEvenWhenTwoInstancesAreAskedAtOnce(Vertx vertx, VertxTestContext ctx) {
    vertx.runOnContext(v -> agentbus.createConversation(new JsonObject()).compose(id -> {
      JsonObject send = new JsonObject().put("id", id).put("content", "PARALLEL");
      Future<JsonObject> a = onShard(0, io.agentbus.bus.Actions.SEND, send.copy());
      Future<JsonObject> b = onShard(1, io.agentbus.bus.Actions.SEND, send.copy());
      Future<JsonObject> duringTurn = onShard(1, io.agentbus.bus.Actions.GET, new JsonObject().put("id", id));
      return Future.join(a, b, duringTurn).transform(ar -> Future.succeededFuture(List.of(a, b, duringTurn)));
    }).onComplete(ctx.succeeding(fs -> ctx.verify(() -> {
      Future<JsonObject> won = fs.get(0).succeeded() ? fs.get(0) : fs.get(1);
      Future<JsonObject> lost = won == fs.get(0) ? fs.get(1) : fs.get(0);
      assertTrue(won.succeeded(), "one of the two turns runs");
      assertEquals("end_turn", won.result().getString("status"));
      assertTrue(lost.failed(), "the other is refused");
      assertEquals(FailureCodes.CONFLICT, ((ReplyException) lost.cause()).failureCode());
      JsonObject during = fs.get(2).result();
      assertTrue(during.getBoolean("busy"));
      assertEquals(0, during.getJsonArray("messages").size(), "a running turn is not visible half-done");
      ctx.completeNow();
    }))));
  }
}
