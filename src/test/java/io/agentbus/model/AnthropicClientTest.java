package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mock.MockModelOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Anthropic client against the mock over real HTTP. */
@ExtendWith(VertxExtension.class)
class AnthropicClientTest {

  private static MockModelOptions script() {
    return new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setApiKey(MockFixture.KEY)
        .setScriptReplies(MockFixture.toolScript());
  }

  private static ModelOptions fast() {
    return MockFixture.options(ModelOptions.ANTHROPIC);
  }

  @Test
  void sendAndStreamAssembleTheSameContent(Vertx vertx, VertxTestContext ctx) {
    List<ModelStreamEvent> events = new ArrayList<>();
    MockFixture.start(vertx, script(), fast()).compose(f -> f.client.send(MockFixture.weatherRequest())
        .compose(sent -> f.client.stream(MockFixture.weatherRequest(), events::add).map(streamed -> List.of(sent, streamed))))
        .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
          ModelResponse sent = both.get(0);
          ModelResponse streamed = both.get(1);
          assertEquals(sent.content(), streamed.content());
          assertEquals("tool_use", sent.stopReason());
          assertEquals("tool_use", streamed.stopReason());
          assertEquals(4, sent.content().size());
          JsonObject thinking = sent.content().getJsonObject(0);
          assertEquals("sig-abc123", thinking.getString("signature"));
          assertEquals("Checking the weather in Zürich 🌤 for you.", streamed.text());
          List<JsonObject> uses = streamed.toolUses();
          assertEquals("Zürich", uses.get(0).getJsonObject("input").getString("city"));
          assertEquals(new JsonObject(), uses.get(1).getJsonObject("input"));
          assertEquals(sent.usage().outputTokens(), streamed.usage().outputTokens());
          assertTrue(streamed.usage().inputTokens() > 0);
          assertTrue(sent.requestId().startsWith("req_"));
          assertTrue(streamed.requestId().startsWith("req_"));
          assertEquals(sent.raw().getString("model"), "test-model");
          // stream events
          assertInstanceOf(ModelStreamEvent.MessageStarted.class, events.get(0));
          assertTrue(events.stream().anyMatch(e -> e instanceof ModelStreamEvent.ThinkingDelta));
          String text = events.stream().filter(e -> e instanceof ModelStreamEvent.TextDelta)
              .map(e -> ((ModelStreamEvent.TextDelta) e).text()).reduce("", String::concat);
          assertEquals("Checking the weather in Zürich 🌤 for you.", text);
          List<ModelStreamEvent.ToolUseStarted> started = events.stream()
              .filter(e -> e instanceof ModelStreamEvent.ToolUseStarted).map(e -> (ModelStreamEvent.ToolUseStarted) e).toList();
          assertEquals(List.of(new ModelStreamEvent.ToolUseStarted(2, "toolu_01A", "get_weather"),
              new ModelStreamEvent.ToolUseStarted(3, "toolu_01B", "get_weather")), started);
          assertEquals(4, events.stream().filter(e -> e instanceof ModelStreamEvent.BlockCompleted).count());
          assertTrue(events.contains(new ModelStreamEvent.Stopped("tool_use", null)));
          assertTrue(events.stream().anyMatch(e -> e instanceof ModelStreamEvent.UsageUpdated u
              && u.usage().outputTokens() == streamed.usage().outputTokens()));
          ctx.completeNow();
        })));
  }

  @Test
  void toolRoundTripIsAcceptedByTheStrictMock(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(), fast()).compose(f -> {
      ModelRequest req = MockFixture.weatherRequest();
      return f.client.send(req).compose(first -> {
        req.getMessages().add(first.toMessage());
        JsonArray results = new JsonArray();
        for (JsonObject use : first.toolUses()) {
          results.add(new JsonObject().put("type", "tool_result").put("tool_use_id", use.getString("id"))
              .put("content", "sunny"));
        }
        req.addMessage("user", results);
        return f.client.stream(req, e -> { });
      });
    }).onComplete(ctx.succeeding(second -> ctx.verify(() -> {
      assertEquals("end_turn", second.stopReason());
      assertEquals("It is sunny in Zürich.", second.text());
      ctx.completeNow();
    })));
  }

  @Test
  void rateLimitIsRetriedHonouringRetryAfter(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("429;retry-after-ms=30").add("429;retry-after=0.05")), fast())
        .compose(f -> {
          fx[0] = f;
          return f.client.send(MockFixture.weatherRequest());
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(3, fx[0].mock.requestCount());
          assertEquals("tool_use", r.stopReason());
          ctx.completeNow();
        })));
  }

  @Test
  void overloadedGivesUpAfterTheRetryBudget(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("529;retry-after-ms=10").add("529;retry-after-ms=10")
            .add("529;retry-after-ms=10").add("529")), fast().setMaxRetries(2))
        .compose(f -> {
          fx[0] = f;
          return f.client.send(MockFixture.weatherRequest());
        })
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.OVERLOADED, e.kind());
          assertEquals(529, e.statusCode());
          assertEquals("overloaded_error", e.errorType());
          assertEquals(3, e.attempts());
          assertEquals(3, fx[0].mock.requestCount());
          assertTrue(e.getMessage().contains("gave up after 3 attempts"), e.getMessage());
          assertTrue(e.getMessage().contains("Overloaded"), e.getMessage());
          ctx.completeNow();
        })));
  }

  @Test
  void shouldRetryFalseOverridesTheStatus(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("500;should-retry=false")), fast())
        .compose(f -> {
          fx[0] = f;
          return f.client.send(MockFixture.weatherRequest());
        })
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.SERVER_ERROR, e.kind());
          assertFalse(e.retryable());
          assertEquals(1, fx[0].mock.requestCount());
          ctx.completeNow();
        })));
  }

  @Test
  void badRequestSurfacesTheApiMessageAndRequestId(Vertx vertx, VertxTestContext ctx) {
    ModelRequest bad = MockFixture.weatherRequest();
    bad.getMessages().add(new JsonObject().put("role", "assistant").put("content", new JsonArray()
        .add(new JsonObject().put("type", "tool_use").put("id", "toolu_X").put("name", "get_weather").put("input", new JsonObject()))));
    bad.addMessage("user", "never mind");
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script(), fast()).compose(f -> {
      fx[0] = f;
      return f.client.send(bad);
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ModelException e = assertInstanceOf(ModelException.class, err);
      assertEquals(ModelException.Kind.INVALID_REQUEST, e.kind());
      assertEquals(400, e.statusCode());
      assertEquals("invalid_request_error", e.errorType());
      assertTrue(e.apiMessage().startsWith("messages.1: tool_use ids were found without tool_result blocks immediately after: toolu_X"),
          e.apiMessage());
      assertNotNull(e.requestId());
      assertTrue(e.getMessage().contains(e.requestId()));
      assertEquals(1, fx[0].mock.requestCount());
      ctx.completeNow();
    })));
  }

  @Test
  void wrongApiKeyFailsWithoutLeakingIt(Vertx vertx, VertxTestContext ctx) {
    String secret = "sk-ant-WRONG-secret-value-42";
    ModelOptions opts = fast().setApiKey(secret);
    MockFixture.start(vertx, script(), opts).compose(f -> {
      assertFalse(f.client.toString().contains(secret));
      assertFalse(opts.toString().contains(secret));
      assertFalse(opts.toJson().encode().contains(secret));
      return f.client.send(MockFixture.weatherRequest());
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ModelException e = assertInstanceOf(ModelException.class, err);
      assertEquals(ModelException.Kind.AUTHENTICATION, e.kind());
      assertEquals(401, e.statusCode());
      assertFalse(e.getMessage().contains(secret));
      assertFalse(e.toString().contains(secret));
      ctx.completeNow();
    })));
  }

  @Test
  void streamErrorEventFailsWithoutRetry(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    List<ModelStreamEvent> events = new ArrayList<>();
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("stream-error")), fast()).compose(f -> {
      fx[0] = f;
      return f.client.stream(MockFixture.weatherRequest(), events::add);
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ModelException e = assertInstanceOf(ModelException.class, err);
      assertEquals(ModelException.Kind.STREAM_ERROR, e.kind());
      assertEquals("overloaded_error", e.errorType());
      assertFalse(events.isEmpty());
      assertEquals(1, fx[0].mock.requestCount());
      ctx.completeNow();
    })));
  }

  @Test
  void brokenStreamAfterEventsIsNotRetried(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("broken-stream")), fast()).compose(f -> {
      fx[0] = f;
      return f.client.stream(MockFixture.weatherRequest(), e -> { });
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ModelException e = assertInstanceOf(ModelException.class, err);
      assertEquals(ModelException.Kind.CONNECTION, e.kind());
      assertFalse(e.retryable());
      assertEquals(1, fx[0].mock.requestCount());
      ctx.completeNow();
    })));
  }

  @Test
  void streamFailingBeforeAnyEventIsRetried(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    List<ModelStreamEvent> events = new ArrayList<>();
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("429;retry-after-ms=10")), fast()).compose(f -> {
      fx[0] = f;
      return f.client.stream(MockFixture.weatherRequest(), events::add);
    }).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(2, fx[0].mock.requestCount());
      assertEquals(1, events.stream().filter(e -> e instanceof ModelStreamEvent.MessageStarted).count());
      assertEquals("tool_use", r.stopReason());
      ctx.completeNow();
    })));
  }

  @Test
  void connectionDroppedOnPlainRequestIsRetried(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script().setFaults(new JsonArray().add("broken-stream")), fast()).compose(f -> {
      fx[0] = f;
      return f.client.send(MockFixture.weatherRequest());
    }).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(2, fx[0].mock.requestCount());
      ctx.completeNow();
    })));
  }

  @Test
  void connectionRefusedIsAConnectionError(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(), fast().setMaxRetries(1))
        .compose(f -> f.mock.close().map(v -> f))
        .compose(f -> f.client.send(MockFixture.weatherRequest()))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.CONNECTION, e.kind());
          assertEquals(2, e.attempts());
          assertFalse(e.getMessage().contains(MockFixture.KEY));
          ctx.completeNow();
        })));
  }

  @Test
  void closedClientFailsFast(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(), fast())
        .compose(f -> f.client.close().map(v -> f))
        .compose(f -> f.client.send(MockFixture.weatherRequest()))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(ModelException.Kind.CLOSED, ((ModelException) err).kind());
          ctx.completeNow();
        })));
  }

  @Test
  void manyConcurrentRequestsShareOneClient(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_RULES).setMaxParallelTools(2), fast())
        .compose(f -> {
          List<Future<ModelResponse>> all = new ArrayList<>();
          for (int i = 0; i < 200; i++) {
            ModelRequest r = new ModelRequest().setTools(new JsonArray().add(MockFixture.tool("a")).add(MockFixture.tool("b"))
                .add(MockFixture.tool("c"))).addMessage("user", "go " + i);
            all.add(i % 2 == 0 ? f.client.send(r) : f.client.stream(r, e -> { }));
          }
          return Future.all(all).map(cf -> cf.<ModelResponse>list());
        })
        .onComplete(ctx.succeeding(list -> ctx.verify(() -> {
          assertEquals(200, list.size());
          for (ModelResponse r : list) {
            assertEquals(2, r.toolUses().size());
            assertEquals(1, r.toolUses().get(0).getJsonObject("input").getInteger("n"));
          }
          ctx.completeNow();
        })));
  }
}
