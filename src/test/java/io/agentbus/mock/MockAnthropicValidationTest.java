package io.agentbus.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The mock must reject what the real Messages API rejects, so a wrong client cannot pass by accident. */
@ExtendWith(VertxExtension.class)
class MockAnthropicValidationTest {

  private MockModelServer mock;
  private WebClient web;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) {
    web = WebClient.create(vertx);
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_RULES).setApiKey("sk-test-key"))
        .onComplete(ctx.succeeding(m -> {
          mock = m;
          ctx.completeNow();
        }));
  }

  private static MultiMap headers() {
    return MultiMap.caseInsensitiveMultiMap().set("x-api-key", "sk-test-key").set("anthropic-version", "2023-06-01")
        .set("content-type", "application/json");
  }

  private Future<HttpResponse<Buffer>> post(MultiMap headers, Buffer body) {
    return web.post(mock.actualPort(), "127.0.0.1", "/v1/messages").putHeaders(headers).sendBuffer(body);
  }

  private static JsonObject valid() {
    return new JsonObject().put("model", "claude-test").put("max_tokens", 100)
        .put("messages", new JsonArray().add(user("hello")));
  }

  private static JsonObject user(Object content) {
    return new JsonObject().put("role", "user").put("content", content);
  }

  private static JsonObject assistant(Object content) {
    return new JsonObject().put("role", "assistant").put("content", content);
  }

  private static JsonObject toolUse(String id) {
    return new JsonObject().put("type", "tool_use").put("id", id).put("name", "t").put("input", new JsonObject());
  }

  private static JsonObject toolResult(String id) {
    return new JsonObject().put("type", "tool_result").put("tool_use_id", id).put("content", "ok");
  }

  private static JsonObject text(String t) {
    return new JsonObject().put("type", "text").put("text", t);
  }

  /** Posts the body and checks the real error shape, status, type and a message fragment. */
  private void expectError(VertxTestContext ctx, MultiMap headers, Buffer body, int status, String type, String fragment) {
    post(headers, body).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(status, resp.statusCode(), resp.bodyAsString());
      JsonObject json = resp.bodyAsJsonObject();
      assertEquals("error", json.getString("type"));
      assertEquals(type, json.getJsonObject("error").getString("type"));
      String message = json.getJsonObject("error").getString("message");
      assertTrue(message.contains(fragment), message);
      String rid = resp.getHeader("request-id");
      assertNotNull(rid);
      assertTrue(rid.startsWith("req_"));
      assertEquals(rid, json.getString("request_id"));
      ctx.completeNow();
    })));
  }

  @Test
  void missingApiKeyIs401(VertxTestContext ctx) {
    expectError(ctx, headers().remove("x-api-key"), valid().toBuffer(), 401, "authentication_error", "x-api-key");
  }

  @Test
  void wrongApiKeyIs401WithoutEchoingIt(VertxTestContext ctx) {
    post(headers().set("x-api-key", "sk-wrong-secret"), valid().toBuffer()).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(401, resp.statusCode());
      assertTrue(!resp.bodyAsString().contains("sk-wrong-secret"));
      ctx.completeNow();
    })));
  }

  @Test
  void missingVersionHeaderIs400(VertxTestContext ctx) {
    expectError(ctx, headers().remove("anthropic-version"), valid().toBuffer(), 400, "invalid_request_error",
        "anthropic-version");
  }

  @Test
  void malformedJsonIs400(VertxTestContext ctx) {
    expectError(ctx, headers(), Buffer.buffer("{\"model\": "), 400, "invalid_request_error", "JSON");
  }

  @Test
  void missingModelIs400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.remove("model");
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error", "model: Field required");
  }

  @Test
  void missingMaxTokensIs400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.remove("max_tokens");
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error", "max_tokens: Field required");
  }

  @Test
  void missingMessagesIs400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.remove("messages");
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error", "messages: Field required");
  }

  @Test
  void systemRoleInMessagesIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray()
        .add(new JsonObject().put("role", "system").put("content", "be nice")).add(user("hi")));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error",
        "messages.0.role: Input should be 'user' or 'assistant'");
  }

  @Test
  void toolUseWithoutResultIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray()
        .add(user("hi"))
        .add(assistant(new JsonArray().add(toolUse("toolu_1")).add(toolUse("toolu_2"))))
        .add(user(new JsonArray().add(toolResult("toolu_1")))));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error",
        "messages.1: tool_use ids were found without tool_result blocks immediately after: toolu_2");
  }

  @Test
  void toolUseAsLastMessageIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray()
        .add(user("hi")).add(assistant(new JsonArray().add(toolUse("toolu_9")))));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error",
        "tool_use ids were found without tool_result blocks immediately after: toolu_9");
  }

  @Test
  void toolResultsNotFirstIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray()
        .add(user("hi"))
        .add(assistant(new JsonArray().add(toolUse("toolu_1"))))
        .add(user(new JsonArray().add(text("here you go")).add(toolResult("toolu_1")))));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error",
        "messages.2: Did not find 1 tool_result block(s) at the beginning of this message");
  }

  @Test
  void toolResultWithoutToolUseIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray().add(user(new JsonArray().add(toolResult("toolu_x")))));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error", "unexpected tool_use_id");
  }

  @Test
  void invalidToolNameIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("tools", new JsonArray().add(new JsonObject().put("name", "fs.read")
        .put("input_schema", new JsonObject().put("type", "object"))));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error",
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
  }

  @Test
  void duplicateToolNamesAre400(VertxTestContext ctx) {
    JsonObject tool = new JsonObject().put("name", "dup").put("input_schema", new JsonObject().put("type", "object"));
    JsonObject body = valid().put("tools", new JsonArray().add(tool).add(tool.copy()));
    expectError(ctx, headers(), body.toBuffer(), 400, "invalid_request_error", "Tool names must be unique.");
  }

  @Test
  void validToolRoundTripIsAccepted(VertxTestContext ctx) {
    JsonObject body = valid().put("messages", new JsonArray()
        .add(user("hi"))
        .add(assistant(new JsonArray().add(text("calling")).add(toolUse("toolu_1")).add(toolUse("toolu_2"))))
        .add(user(new JsonArray().add(toolResult("toolu_2")).add(toolResult("toolu_1")).add(text("thanks")))));
    post(headers(), body.toBuffer()).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(200, resp.statusCode(), resp.bodyAsString());
      JsonObject msg = resp.bodyAsJsonObject();
      assertEquals("message", msg.getString("type"));
      assertEquals("end_turn", msg.getString("stop_reason"));
      assertTrue(msg.getJsonObject("usage").getLong("input_tokens") > 0);
      assertTrue(msg.getJsonObject("usage").getLong("output_tokens") > 0);
      assertEquals(1, mock.requestCount());
      ctx.completeNow();
    })));
  }

  @Test
  void streamHasTheRealEventSequence(VertxTestContext ctx) {
    JsonObject body = valid().put("stream", true).put("tools", new JsonArray().add(new JsonObject().put("name", "get_weather")
        .put("input_schema", new JsonObject().put("type", "object").put("required", new JsonArray().add("city"))
            .put("properties", new JsonObject().put("city", new JsonObject().put("type", "string"))))));
    List<SseEvent> events = new ArrayList<>();
    post(headers(), body.toBuffer()).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(200, resp.statusCode());
      assertTrue(resp.getHeader("content-type").startsWith("text/event-stream"));
      SseParser.create().handler(events::add).handle(resp.body());
      List<String> names = events.stream().map(SseEvent::event).toList();
      assertEquals(List.of("message_start", "ping", "content_block_start", "content_block_delta", "content_block_delta"),
          names.subList(0, 5));
      assertEquals(List.of("content_block_stop", "message_delta", "message_stop"), names.subList(names.size() - 3, names.size()));
      for (SseEvent e : events) {
        assertEquals(e.event(), new JsonObject(e.data()).getString("type"));
      }
      JsonObject delta = new JsonObject(events.get(events.size() - 2).data());
      assertEquals("tool_use", delta.getJsonObject("delta").getString("stop_reason"));
      ctx.completeNow();
    })));
  }
}
