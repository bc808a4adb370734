package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mock.MockModelOptions;
import io.agentbus.model.openai.OpenAiCodec;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The OpenAI client against the mock over real HTTP. */
@ExtendWith(VertxExtension.class)
class OpenAiClientTest {

  private static MockModelOptions script(JsonArray replies) {
    return new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setApiKey(MockFixture.KEY).setScriptReplies(replies);
  }

  private static ModelOptions openai() {
    return MockFixture.options(ModelOptions.OPENAI);
  }

  @Test
  void sendAndStreamAssembleTheSameContent(Vertx vertx, VertxTestContext ctx) {
    List<ModelStreamEvent> events = new ArrayList<>();
    MockFixture.start(vertx, script(MockFixture.toolScript()), openai())
        .compose(f -> f.client.send(MockFixture.weatherRequest())
            .compose(sent -> f.client.stream(MockFixture.weatherRequest(), events::add).map(s -> List.of(sent, s))))
        .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
          ModelResponse sent = both.get(0);
          ModelResponse streamed = both.get(1);
          assertEquals(sent.content(), streamed.content());
          // thinking has no Chat Completions equivalent: text + 2 tool calls
          assertEquals(3, sent.content().size());
          assertEquals("tool_use", sent.stopReason());
          assertEquals("tool_use", streamed.stopReason());
          assertEquals("Checking the weather in Zürich 🌤 for you.", streamed.text());
          JsonObject use = streamed.toolUses().get(0);
          assertEquals("toolu_01A", use.getString("id"));
          assertEquals(3, use.getJsonObject("input").getInteger("days"));
          assertEquals(new JsonObject(), streamed.toolUses().get(1).getJsonObject("input"));
          assertEquals(sent.usage().outputTokens(), streamed.usage().outputTokens());
          assertTrue(sent.usage().inputTokens() > 0 && sent.usage().outputTokens() > 0);
          assertTrue(sent.requestId().startsWith("req_"));
          assertTrue(events.contains(new ModelStreamEvent.ToolUseStarted(1, "toolu_01A", "get_weather")));
          assertTrue(events.contains(new ModelStreamEvent.Stopped("tool_use", null)));
          assertTrue(events.stream().anyMatch(e -> e instanceof ModelStreamEvent.UsageUpdated));
          ctx.completeNow();
        })));
  }

  @Test
  void canonicalToolHistoryIsMappedAndAcceptedByTheStrictMock(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(MockFixture.toolScript()), openai()).compose(f -> {
      ModelRequest req = MockFixture.weatherRequest();
      return f.client.send(req).compose(first -> {
        req.getMessages().add(first.toMessage());
        req.addMessage("user", new JsonArray()
            .add(new JsonObject().put("type", "tool_result").put("tool_use_id", "toolu_01A").put("content", "sunny"))
            .add(new JsonObject().put("type", "tool_result").put("tool_use_id", "toolu_01B").put("is_error", true)
                .put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", "city missing")))));
        return f.client.stream(req, e -> { });
      });
    }).onComplete(ctx.succeeding(second -> ctx.verify(() -> {
      assertEquals("end_turn", second.stopReason());
      assertEquals("It is sunny in Zürich.", second.text());
      ctx.completeNow();
    })));
  }

  @Test
  void invalidArgumentsJsonIsKeptRawAndMarked(Vertx vertx, VertxTestContext ctx) {
    JsonArray replies = new JsonArray().add(new JsonObject().put("content", new JsonArray()
        .add(new JsonObject().put("type", "tool_use").put("id", "call_bad").put("name", "get_weather")
            .put("_raw_arguments", "{\"city\": \"Par"))));
    MockFixture.start(vertx, script(replies), openai())
        .compose(f -> f.client.send(MockFixture.weatherRequest())
            .compose(sent -> f.client.stream(MockFixture.weatherRequest(), e -> { }).map(s -> List.of(sent, s))))
        .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
          for (ModelResponse r : both) {
            JsonObject use = r.toolUses().get(0);
            assertEquals(new JsonObject(), use.getJsonObject("input"));
            assertEquals("{\"city\": \"Par", use.getString(OpenAiCodec.INVALID_ARGUMENTS));
            assertEquals("tool_use", r.stopReason());
          }
          ctx.completeNow();
        })));
  }

  @Test
  void badRequestSurfacesTheApiMessageAndRequestId(Vertx vertx, VertxTestContext ctx) {
    ModelRequest bad = MockFixture.weatherRequest().setTools(new JsonArray().add(MockFixture.tool("fs.read")));
    MockFixture.start(vertx, script(MockFixture.toolScript()), openai()).compose(f -> f.client.send(bad))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.INVALID_REQUEST, e.kind());
          assertEquals(400, e.statusCode());
          assertTrue(e.apiMessage().contains("Invalid 'tools[0].function.name'"), e.apiMessage());
          assertNotNull(e.requestId());
          ctx.completeNow();
        })));
  }

  @Test
  void missingKeyIsAnAuthenticationError(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(MockFixture.toolScript()), openai().setApiKey(null))
        .compose(f -> f.client.send(MockFixture.weatherRequest()))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(ModelException.Kind.AUTHENTICATION, ((ModelException) err).kind());
          ctx.completeNow();
        })));
  }

  @Test
  void wrongKeyNeverAppearsInTheError(Vertx vertx, VertxTestContext ctx) {
    String secret = "sk-proj-WRONG-secret-777";
    MockFixture.start(vertx, script(MockFixture.toolScript()), openai().setApiKey(secret))
        .compose(f -> f.client.stream(MockFixture.weatherRequest(), e -> { }))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          assertEquals(401, ((ModelException) err).statusCode());
          assertFalse(err.toString().contains(secret));
          ctx.completeNow();
        })));
  }

  @Test
  void overloadedIsRetried(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script(MockFixture.toolScript()).setFaults(new JsonArray().add("529;retry-after-ms=5")
        .add("500;retry-after-ms=5")), openai())
        .compose(f -> {
          fx[0] = f;
          return f.client.stream(MockFixture.weatherRequest(), e -> { });
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(3, fx[0].mock.requestCount());
          assertEquals(2, r.toolUses().size());
          ctx.completeNow();
        })));
  }

  @Test
  void midStreamErrorChunkFails(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, script(MockFixture.toolScript()).setFaults(new JsonArray().add("stream-error")), openai())
        .compose(f -> f.client.stream(MockFixture.weatherRequest(), e -> { }))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.STREAM_ERROR, e.kind());
          assertEquals("server_error", e.errorType());
          ctx.completeNow();
        })));
  }

  @Test
  void demoModePicksTheWeatherToolAndSummarises(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO), openai()).compose(f -> {
      ModelRequest req = new ModelRequest().setTools(new JsonArray().add(MockFixture.tool("list_files"))
          .add(MockFixture.weatherTool())).addMessage("user", "What's the weather like in Lisbon today?");
      return f.client.send(req).compose(first -> {
        JsonObject use = first.toolUses().get(0);
        assertEquals("get_weather", use.getString("name"));
        assertEquals("Lisbon", use.getJsonObject("input").getString("city"));
        req.getMessages().add(first.toMessage());
        req.addMessage("user", new JsonArray().add(new JsonObject().put("type", "tool_result")
            .put("tool_use_id", use.getString("id")).put("content", "22°C and sunny")));
        return f.client.send(req);
      });
    }).onComplete(ctx.succeeding(answer -> ctx.verify(() -> {
      assertEquals("end_turn", answer.stopReason());
      assertTrue(answer.text().contains("22°C and sunny"), answer.text());
      ctx.completeNow();
    })));
  }
}
