package io.agentbus.conversation;

import io.agentbus.testing.Integration;
import static io.agentbus.conversation.ConversationLoopTest.ECHO;
import static io.agentbus.conversation.ConversationLoopTest.SUM;
import static io.agentbus.conversation.ConversationLoopTest.assertPaired;
import static io.agentbus.conversation.ConversationLoopTest.reply;
import static io.agentbus.conversation.ConversationLoopTest.text;
import static io.agentbus.conversation.ConversationLoopTest.toolUse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.FailureCodes;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The same loop through both providers, streaming and not, and against model API faults:
 * each test deploys its own mock model and Agentbus.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ConversationProvidersTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  static JsonObject parallelScript() {
    return new JsonObject().put("replies", new JsonArray()
      .add(reply(null, text("Checking."), toolUse(ECHO, new JsonObject().put("message", "hi")),
        toolUse(SUM, new JsonObject().put("a", 20).put("b", 22))))
      .add(new JsonObject().put("text", "hi and 42")));
  }

  /** Starts a mock and Agentbus, runs the body, closes both. */
  static <T> Future<T> withAgentbus(Vertx vertx, MockModelOptions mockOptions, Function<ModelOptions, ConversationOptions> conv,
                                   java.util.function.BiFunction<Agentbus, MockModelServer, Future<T>> body) {
    return MockModelServer.start(vertx, mockOptions).compose(mock -> {
      ModelOptions model = new ModelOptions().setApiKey("sk-test-SECRET-123").setBaseUrl("http://127.0.0.1:" + mock.actualPort())
        .setModel("mock");
      ConversationOptions options = conv.apply(model);
      return Agentbus.deploy(vertx, new AgentbusOptions().addMcpServer(InteropServers.everythingStdio("everything"))
          .setConversationInstances(1).setConversation(options))
        .compose(agentbus -> body.apply(agentbus, mock).eventually(agentbus::close))
        .eventually(mock::close);
    });
  }

  static Future<JsonObject> oneTurn(Agentbus agentbus, String text) {
    return agentbus.createConversation(new JsonObject())
      .compose(id -> agentbus.send(id, text).compose(r -> agentbus.get(id).map(c -> c.put("result", r))));
  }

  /** The history with tool_use ids replaced by their position, for comparing runs. */
  static JsonArray normalized(JsonArray messages) {
    return new JsonArray(withPositionalIds(messages));
  }

  static String withPositionalIds(JsonArray messages) {
    String s = messages.encode();
    int n = 0;
    for (Object m : messages) {
      Object content = ((JsonObject) m).getValue("content");
      for (Object b : content instanceof JsonArray a ? a : new JsonArray()) {
        if (b instanceof JsonObject block && "tool_use".equals(block.getString("type"))) {
          s = s.replace(block.getString("id"), "ID" + (n++));
        }
      }
    }
    return s;
  }

  Future<JsonObject> run(Vertx vertx, String provider, boolean stream) {
    return withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()),
      model -> new ConversationOptions().setStream(stream).setModel(model.setProvider(provider)
        .setBaseUrl(model.getBaseUrl() + ("openai".equals(provider) ? "/v1" : ""))),
      (agentbus, mock) -> oneTurn(agentbus, "what is 20+22, and echo hi"));
  }

  @Test
  void streamingAndNonStreamingGiveTheSameHistoryForBothProviders(Vertx vertx, VertxTestContext ctx) {
    List<JsonObject> runs = new java.util.ArrayList<>();
    run(vertx, "anthropic", true).map(runs::add)
      .compose(v -> run(vertx, "anthropic", false)).map(runs::add)
      .compose(v -> run(vertx, "openai", true)).map(runs::add)
      .compose(v -> run(vertx, "openai", false)).map(runs::add)
      .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        for (JsonObject c : runs) {
          assertEquals("end_turn", c.getJsonObject("result").getString("status"));
          assertEquals("hi and 42", c.getJsonObject("result").getString("answer"));
          assertPaired(c.getJsonArray("messages"));
          JsonArray results = c.getJsonArray("messages").getJsonObject(2).getJsonArray("content");
          assertEquals("Echo: hi", results.getJsonObject(0).getJsonArray("content").getJsonObject(0).getString("text"));
        }
        assertEquals(normalized(runs.get(0).getJsonArray("messages")), normalized(runs.get(1).getJsonArray("messages")));
        assertEquals(normalized(runs.get(2).getJsonArray("messages")), normalized(runs.get(3).getJsonArray("messages")));
        ctx.completeNow();
      })));
  }

  @Test
  void rateLimitsAndOverloadAreRetriedThenSucceed(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()),
      model -> new ConversationOptions().setModel(model),
      (agentbus, mock) -> {
        mock.enqueueFaults("429;retry-after=0", "529");
        return oneTurn(agentbus, "retry me").map(c -> {
          ctx.verify(() -> {
            assertEquals("end_turn", c.getJsonObject("result").getString("status"));
            assertEquals(4, mock.requestCount(), "2 faults + 2 model calls");
          });
          return c;
        });
      }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void persistentOverloadGivesUpAfterTheRetryBudgetWithAClearError(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()),
      model -> new ConversationOptions().setModel(model.setMaxRetries(1)),
      (agentbus, mock) -> {
        mock.enqueueFaults("529;retry-after-ms=1", "529;retry-after-ms=1", "529;retry-after-ms=1");
        return oneTurn(agentbus, "overloaded").transform(ar -> {
          ctx.verify(() -> {
            assertTrue(ar.failed());
            ReplyException re = assertInstanceOf(ReplyException.class, ar.cause());
            assertEquals(FailureCodes.UNAVAILABLE, re.failureCode(), "an overload that outlasts the retries says to come back later");
            assertTrue(re.getMessage().contains("overloaded"), re.getMessage());
            assertTrue(re.getMessage().contains("gave up after 2 attempts"), re.getMessage());
            assertEquals(2, mock.requestCount());
          });
          return Future.succeededFuture();
        });
      }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aRejectedRequestSurfacesTheApiMessageAtOnceWithoutTheKey(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()).setApiKey("the-right-key"),
      model -> new ConversationOptions().setModel(model),
      (agentbus, mock) -> oneTurn(agentbus, "wrong key").transform(ar -> {
        ctx.verify(() -> {
          ReplyException re = assertInstanceOf(ReplyException.class, ar.cause());
          assertEquals(FailureCodes.UPSTREAM, re.failureCode());
          assertTrue(re.getMessage().contains("authentication_error"), re.getMessage());
          assertFalse(re.getMessage().contains("sk-test-SECRET-123"));
          assertTrue(logs.contains("turn failed: "), "the failed turn was not logged: the check below would prove nothing");
          assertFalse(logs.contains("sk-test-SECRET-123"), "the API key was logged");
          assertEquals(1, mock.requestCount(), "a 401 is not retried");
        });
        return Future.succeededFuture();
      })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aSecondSendWhileATurnRunsIsRefused(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()).setLatencyMs(300),
      model -> new ConversationOptions().setModel(model),
      (agentbus, mock) -> agentbus.createConversation(new JsonObject()).compose(id -> {
        Future<JsonObject> first = agentbus.send(id, "slow one");
        return agentbus.send(id, "too soon").transform(ar -> {
          ctx.verify(() -> {
            ReplyException re = assertInstanceOf(ReplyException.class, ar.cause());
            assertEquals(FailureCodes.CONFLICT, re.failureCode());
          });
          return first;
        });
      })).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
        assertEquals("end_turn", r.getString("status"));
        ctx.completeNow();
      })));
  }

  @Test
  void aSpentTokenBudgetEndsTheNextTurnClearly(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()),
      model -> new ConversationOptions().setModel(model).setTokenBudget(1),
      (agentbus, mock) -> agentbus.createConversation(new JsonObject())
        .compose(id -> agentbus.send(id, "spend").compose(r1 -> agentbus.send(id, "more"))))
      .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
        assertEquals("budget_exhausted", r.getString("status"));
        assertEquals(0, r.getInteger("iterations"));
        ctx.completeNow();
      })));
  }

  @Test
  void tenantsOnlySeeTheirOwnConversations(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions(), model -> new ConversationOptions().setModel(model),
      (agentbus, mock) -> vertx.eventBus().<JsonObject>request(io.agentbus.bus.Addresses.CONVERSATION,
          new JsonObject().put("tenant", "acme"), new io.vertx.core.eventbus.DeliveryOptions().addHeader("action", "create"))
        .compose(created -> {
          String id = created.body().getString("id");
          return vertx.eventBus().<JsonObject>request(ConversationIds.address(id), new JsonObject().put("id", id).put("tenant", "globex"),
            new io.vertx.core.eventbus.DeliveryOptions().addHeader("action", "get"));
        }).transform(ar -> {
          ctx.verify(() -> assertEquals(FailureCodes.NOT_FOUND, ((ReplyException) ar.cause()).failureCode()));
          return Future.succeededFuture();
        })).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void drainRefusesNewTurnsAndWaitsForRunningOnes(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(parallelScript()).setLatencyMs(200),
      model -> new ConversationOptions().setModel(model),
      (agentbus, mock) -> agentbus.createConversation(new JsonObject()).compose(id -> agentbus.createConversation(new JsonObject())
        .compose(other -> {
          io.vertx.core.Promise<Void> started = io.vertx.core.Promise.promise();
          vertx.eventBus().<JsonObject>consumer(io.agentbus.bus.Addresses.conversationEvents(id), m -> {
            if ("turn_started".equals(m.body().getString("type"))) {
              started.tryComplete();
            }
          });
          Future<JsonObject> running = agentbus.send(id, "long turn");
          return started.future().compose(v -> {
            Future<Void> drained = agentbus.drain(30_000);
            return agentbus.send(other, "new turn").transform(refused -> {
              ctx.verify(() -> {
                assertEquals(FailureCodes.UNAVAILABLE, ((ReplyException) refused.cause()).failureCode());
                assertTrue(refused.cause().getMessage().contains("shutting down"));
              });
              return drained.map(d -> {
                ctx.verify(() -> {
                  assertTrue(running.succeeded(), "drain completed only after the running turn");
                  assertEquals("end_turn", running.result().getString("status"));
                });
                return d;
              });
            });
          });
        }))).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void idleConversationsLeaveMemoryAndComeBackFromTheStore(Vertx vertx, VertxTestContext ctx) {
    withAgentbus(vertx, new MockModelOptions(), model -> new ConversationOptions().setModel(model).setIdleTimeoutMs(50),
      (agentbus, mock) -> agentbus.createConversation(new JsonObject()).compose(id -> agentbus.send(id, "hello").compose(r -> {
        io.vertx.core.Promise<Void> gone = io.vertx.core.Promise.promise();
        // the sweep runs every second at the least; look until the conversation left memory
        vertx.setPeriodic(200, t -> {
          if (inMemory(vertx) == 0) {
            vertx.cancelTimer(t);
            gone.tryComplete();
          }
        });
        return gone.future();
      }).compose(v -> agentbus.get(id)).map(c -> {
        ctx.verify(() -> {
          assertEquals(2, c.getJsonArray("messages").size(), "the history came back from the store");
          assertEquals(1, inMemory(vertx), "and the conversation is in memory again");
        });
        return c;
      }))).onComplete(ctx.succeedingThenComplete());
  }

  private static double inMemory(Vertx vertx) {
    return io.agentbus.metrics.AgentbusMetrics.get(vertx).registry().get("agentbus.conversations.active").gauge().value();
  }

}
