package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mock.MockModelOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Transport options: HTTP/2, timeouts, script selection and rules mode through the clients. */
@ExtendWith(VertxExtension.class)
class ModelTransportTest {

  @Test
  void http2PriorKnowledgeWorksForBothProviders(Vertx vertx, VertxTestContext ctx) {
    MockModelOptions mock = new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScriptReplies(MockFixture.toolScript());
    MockFixture.start(vertx, mock, MockFixture.options(ModelOptions.ANTHROPIC).setHttp2(true))
        .compose(f -> f.client.stream(MockFixture.weatherRequest(), e -> { }))
        .compose(a -> MockFixture.start(vertx, mock, MockFixture.options(ModelOptions.OPENAI).setHttp2(true))
            .compose(f -> f.client.send(MockFixture.weatherRequest())))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(2, r.toolUses().size());
          ctx.completeNow();
        })));
  }

  @Test
  void slowServerTimesOutAndIsRetried(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockModelOptions mock = new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT)
        .setScriptReplies(MockFixture.toolScript()).setLatencyMs(2_000);
    MockFixture.start(vertx, mock, MockFixture.options(ModelOptions.ANTHROPIC).setRequestTimeoutMs(150).setMaxRetries(1))
        .compose(f -> {
          fx[0] = f;
          return f.client.send(MockFixture.weatherRequest());
        })
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          ModelException e = assertInstanceOf(ModelException.class, err);
          assertEquals(ModelException.Kind.TIMEOUT, e.kind(), e.getMessage());
          assertEquals(2, e.attempts());
          assertEquals(2, fx[0].mock.requestCount());
          ctx.completeNow();
        })));
  }

  @Test
  void scriptConversationIsChosenByTheFirstUserMessage(Vertx vertx, VertxTestContext ctx) {
    JsonObject script = new JsonObject().put("conversations", new JsonArray()
        .add(new JsonObject().put("replies", new JsonArray().add(new JsonObject().put("text", "fallback"))))
        .add(new JsonObject().put("match", "banana").put("replies", new JsonArray().add(new JsonObject().put("text", "yellow")))));
    MockFixture.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(script),
            MockFixture.options(ModelOptions.OPENAI))
        .compose(f -> f.client.send(new ModelRequest().addMessage("user", "a banana please"))
            .compose(a -> f.client.send(new ModelRequest().addMessage("user", "an apple")).map(b -> a.text() + "/" + b.text())))
        .onComplete(ctx.succeeding(s -> ctx.verify(() -> {
          assertEquals("yellow/fallback", s);
          ctx.completeNow();
        })));
  }

  @Test
  void rulesModeCallsKToolsThenSummarises(Vertx vertx, VertxTestContext ctx) {
    MockFixture.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_RULES).setMaxParallelTools(2),
            MockFixture.options(ModelOptions.ANTHROPIC))
        .compose(f -> {
          ModelRequest req = new ModelRequest().setTools(new JsonArray().add(MockFixture.weatherTool())
              .add(MockFixture.tool("b")).add(MockFixture.tool("c"))).addMessage("user", "load");
          return f.client.stream(req, e -> { }).compose(first -> {
            assertEquals(2, first.toolUses().size());
            assertEquals("Paris", first.toolUses().get(0).getJsonObject("input").getString("city"));
            req.getMessages().add(first.toMessage());
            JsonArray results = new JsonArray();
            for (JsonObject use : first.toolUses()) {
              results.add(new JsonObject().put("type", "tool_result").put("tool_use_id", use.getString("id"))
                  .put("content", "ok").put("is_error", results.isEmpty()));
            }
            req.addMessage("user", results);
            return f.client.send(req);
          });
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals("end_turn", r.stopReason());
          assertTrue(r.text().contains("2 tool result(s), 1 failed"), r.text());
          ctx.completeNow();
        })));
  }
}
