package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Provider;
import io.agentbus.model.Usage;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The {@code sample} action: the request the conversation's model gets (maxTokens lowered to the
 * server's limit, the system prompt, text only), the reply, the per-turn limit, the token budget,
 * the usage counted in the turn, and a conversation that runs no turn.
 */
@ExtendWith(VertxExtension.class)
class SamplingRequestsTest {

  private static final String ADDRESS = "test.sampling";

  /** A model that answers every request with "sampled" and 7 + 5 tokens, recording the requests. */
  private static final class FakeModel implements ModelClient {
    final List<ModelRequest> requests = new CopyOnWriteArrayList<>();

    @Override
    public Provider provider() {
      return Provider.ANTHROPIC;
    }

    @Override
    public Future<ModelResponse> send(ModelRequest request) {
      requests.add(request);
      return Future.succeededFuture(new ModelResponse("m1", "fake-model", new JsonArray().add(new JsonObject().put("type", "text")
        .put("text", "sampled")), "end_turn", null, null, new Usage(7, 5, 0, 0), null, null));
    }

    @Override
    public Future<ModelResponse> stream(ModelRequest request, Handler<ModelStreamEvent> handler) {
      return send(request);
    }

    @Override
    public Future<Void> close() {
      return Future.succeededFuture();
    }
  }

  private final FakeModel model = new FakeModel();

  /** A conversation running a turn, and the sampling service on the same context. */
  private Future<Conversation> serve(Vertx vertx, long tokenBudget) {
    Promise<Conversation> p = Promise.promise();
    vertx.runOnContext(v -> {
      ConversationRegistry registry = ConversationRegistry.shared(vertx, 100, 1 << 20);
      Conversation c = registry.addIfAbsent(new Conversation("c0-sampling-" + tokenBudget, "t", null, ToolSelection.ALL));
      c.tryClaim();
      c.turnStarted();
      SamplingRequests sampling = new SamplingRequests(model, new ConversationOptions().setTokenBudget(tokenBudget), registry,
        "conversation-model", AgentbusMetrics.get(vertx));
      vertx.eventBus().<JsonObject>consumer(ADDRESS + tokenBudget, sampling::handle).completion().map(c).onComplete(p);
    });
    return p.future();
  }

  private static JsonObject params(Object content, int maxTokens) {
    return new JsonObject().put("maxTokens", maxTokens).put("systemPrompt", "Be terse.")
      .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", content)));
  }

  private static Future<Message<JsonObject>> sample(Vertx vertx, long budget, Conversation c, String tenant, JsonObject params) {
    JsonObject body = new JsonObject().put("conversationId", c.id()).put("tenant", tenant).put("server", "s").put("params", params)
      .put("maxTokens", 20).put("maxCallsPerTurn", 2).put("timeoutMs", 5_000);
    return vertx.eventBus().request(ADDRESS + budget, body, new DeliveryOptions().addHeader(Actions.HEADER, Actions.SAMPLE));
  }

  private static int code(AsyncResult<?> f) {
    return ((ReplyException) f.cause()).failureCode();
  }

  private static Future<Void> onContext(Vertx vertx, Runnable action) {
    Promise<Void> p = Promise.promise();
    vertx.runOnContext(v -> {
      action.run();
      p.complete();
    });
    return p.future();
  }

  @Test
  void theConversationsModelAnswersWithinTheServersLimitsAndTheTurnPaysForIt(Vertx vertx, VertxTestContext ctx) {
    JsonObject text = new JsonObject().put("type", "text").put("text", "hi");
    serve(vertx, 0).compose(c -> sample(vertx, 0, c, "t", params(text, 500))
      .compose(first -> sample(vertx, 0, c, "t", params(new JsonArray().add(text), 10)).map(second -> List.of(first, second)))
      .compose(ok -> sample(vertx, 0, c, "t", params(text, 10)).transform(third -> Future.succeededFuture(third))
        .compose(third -> sample(vertx, 0, c, "other", params(text, 10)).transform(other -> {
          ctx.verify(() -> {
            assertEquals(new JsonObject().put("role", "assistant").put("content", new JsonObject().put("type", "text")
              .put("text", "sampled")).put("model", "fake-model").put("stopReason", "endTurn"), ok.get(0).body());
            assertEquals("sampled", ok.get(1).body().getJsonObject("content").getString("text"));
            ModelRequest asked = model.requests.get(0);
            assertEquals(20, asked.getMaxTokens(), "lowered to the server's sampling.maxTokens");
            assertEquals(10, model.requests.get(1).getMaxTokens());
            assertEquals("Be terse.", asked.getSystem());
            assertEquals("conversation-model", asked.getModel());
            assertEquals(429, code(third), "over maxCallsPerTurn");
            assertTrue(third.cause().getMessage().contains("maxCallsPerTurn"), third.cause().getMessage());
            assertEquals(404, code(other), "another tenant's conversation runs no turn for it");
            assertEquals(2, model.requests.size());
          });
          return onContext(vertx, () -> ctx.verify(() -> assertEquals(new Usage(14, 10, 0, 0), c.takeSideUsage(),
            "both calls count in the turn")));
        })))
      // the next turn may sample again, text only
      .compose(v -> onContext(vertx, c::turnStarted))
      .compose(v -> sample(vertx, 0, c, "t", params(new JsonObject().put("type", "image").put("data", "x"), 10)).transform(image -> {
        ctx.verify(() -> {
          assertEquals(400, code(image));
          assertTrue(image.cause().getMessage().contains("only text"), image.cause().getMessage());
        });
        return sample(vertx, 0, c, "t", params(text, 10));
      })))
      .onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void aSpentTokenBudgetRefusesSampling(Vertx vertx, VertxTestContext ctx) {
    JsonObject text = new JsonObject().put("type", "text").put("text", "hi");
    serve(vertx, 10).compose(c -> sample(vertx, 10, c, "t", params(text, 10))
      .compose(first -> sample(vertx, 10, c, "t", params(text, 10)).transform(second -> {
        ctx.verify(() -> {
          assertEquals(429, code(second));
          assertTrue(second.cause().getMessage().contains("token budget"), second.cause().getMessage());
        });
        return Future.succeededFuture();
      }))).onComplete(ctx.succeedingThenComplete());
  }
}
