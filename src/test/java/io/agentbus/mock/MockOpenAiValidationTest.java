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

/** The mock must reject what the real Chat Completions API rejects. */
@ExtendWith(VertxExtension.class)
class MockOpenAiValidationTest {

  private MockModelServer mock;
  private WebClient web;

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) {
    web = WebClient.create(vertx);
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_RULES))
        .onComplete(ctx.succeeding(m -> {
          mock = m;
          ctx.completeNow();
        }));
  }

  private Future<HttpResponse<Buffer>> post(MultiMap headers, Buffer body) {
    return web.post(mock.actualPort(), "127.0.0.1", "/v1/chat/completions").putHeaders(headers).sendBuffer(body);
  }

  private static MultiMap headers() {
    return MultiMap.caseInsensitiveMultiMap().set("authorization", "Bearer sk-any").set("content-type", "application/json");
  }

  private static JsonObject valid() {
    return new JsonObject().put("model", "gpt-test")
        .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "hello")));
  }

  private static JsonObject call(String id) {
    return new JsonObject().put("id", id).put("type", "function")
        .put("function", new JsonObject().put("name", "t").put("arguments", "{}"));
  }

  private void expectError(VertxTestContext ctx, MultiMap headers, Buffer body, int status, String fragment) {
    post(headers, body).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(status, resp.statusCode(), resp.bodyAsString());
      JsonObject error = resp.bodyAsJsonObject().getJsonObject("error");
      assertNotNull(error);
      assertEquals("invalid_request_error", error.getString("type"));
      assertTrue(error.containsKey("param") && error.containsKey("code"));
      assertTrue(error.getString("message").contains(fragment), error.getString("message"));
      assertNotNull(resp.getHeader("x-request-id"));
      ctx.completeNow();
    })));
  }

  @Test
  void missingBearerIs401(VertxTestContext ctx) {
    expectError(ctx, headers().remove("authorization"), valid().toBuffer(), 401, "You didn't provide an API key");
  }

  @Test
  void malformedJsonIs400(VertxTestContext ctx) {
    expectError(ctx, headers(), Buffer.buffer("not json"), 400, "We could not parse the JSON body");
  }

  @Test
  void missingMessagesIs400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.remove("messages");
    expectError(ctx, headers(), body.toBuffer(), 400, "Missing required parameter: 'messages'.");
  }

  @Test
  void toolCallsWithoutToolMessagesAre400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.getJsonArray("messages")
        .add(new JsonObject().put("role", "assistant").putNull("content").put("tool_calls", new JsonArray().add(call("call_1")).add(call("call_2"))))
        .add(new JsonObject().put("role", "tool").put("tool_call_id", "call_1").put("content", "ok"))
        .add(new JsonObject().put("role", "user").put("content", "next"));
    expectError(ctx, headers(), body.toBuffer(), 400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. "
            + "The following tool_call_ids did not have response messages: call_2");
  }

  @Test
  void toolMessageWithoutToolCallsIs400(VertxTestContext ctx) {
    JsonObject body = valid();
    body.getJsonArray("messages").add(new JsonObject().put("role", "tool").put("tool_call_id", "call_x").put("content", "ok"));
    expectError(ctx, headers(), body.toBuffer(), 400, "messages with role 'tool' must be a response to a preceeding message");
  }

  @Test
  void invalidFunctionNameIs400(VertxTestContext ctx) {
    JsonObject body = valid().put("tools", new JsonArray().add(new JsonObject().put("type", "function")
        .put("function", new JsonObject().put("name", "fs.read"))));
    expectError(ctx, headers(), body.toBuffer(), 400, "Invalid 'tools[0].function.name': string does not match pattern");
  }

  @Test
  void streamEndsWithUsageChunkAndDone(VertxTestContext ctx) {
    JsonObject body = valid().put("stream", true).put("stream_options", new JsonObject().put("include_usage", true))
        .put("tools", new JsonArray().add(new JsonObject().put("type", "function").put("function", new JsonObject()
            .put("name", "lookup").put("parameters", new JsonObject().put("type", "object")
                .put("properties", new JsonObject().put("q", new JsonObject().put("type", "string")))
                .put("required", new JsonArray().add("q"))))));
    List<SseEvent> events = new ArrayList<>();
    post(headers(), body.toBuffer()).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
      assertEquals(200, resp.statusCode());
      SseParser.create().handler(events::add).handle(resp.body());
      assertEquals("[DONE]", events.get(events.size() - 1).data());
      JsonObject usageChunk = new JsonObject(events.get(events.size() - 2).data());
      assertTrue(usageChunk.getJsonArray("choices").isEmpty());
      assertTrue(usageChunk.getJsonObject("usage").getLong("prompt_tokens") > 0);
      JsonObject finish = new JsonObject(events.get(events.size() - 3).data());
      assertEquals("tool_calls", finish.getJsonArray("choices").getJsonObject(0).getString("finish_reason"));
      JsonObject firstCall = new JsonObject(events.get(1).data()).getJsonArray("choices").getJsonObject(0)
          .getJsonObject("delta").getJsonArray("tool_calls").getJsonObject(0);
      assertEquals(0, firstCall.getInteger("index"));
      assertTrue(firstCall.getString("id").startsWith("call_"));
      ctx.completeNow();
    })));
  }
}
