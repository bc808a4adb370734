package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.agentbus.model.anthropic.AnthropicCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class PromptCachingTest {

  private static ModelRequest request() {
    JsonObject assistant = new JsonObject().put("role", "assistant").put("content", new JsonArray()
      .add(new JsonObject().put("type", "tool_use").put("id", "t1").put("name", "x").put("input", new JsonObject())));
    JsonObject results = new JsonObject().put("role", "user").put("content", new JsonArray()
      .add(new JsonObject().put("type", "tool_result").put("tool_use_id", "t1").put("content", "42")));
    return new ModelRequest().setModel("m").setSystem("sys")
      .setMessages(new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi")).add(assistant).add(results))
      .setTools(new JsonArray().add(new JsonObject().put("name", "a").put("input_schema", new JsonObject().put("type", "object")))
        .add(new JsonObject().put("name", "b").put("input_schema", new JsonObject().put("type", "object"))));
  }

  @Test
  void breakpointsGoOnTheLastToolAndTheLastMessageWithoutTouchingTheHistory() {
    ModelRequest req = request();
    String before = req.getMessages().encode();
    JsonObject body = AnthropicCodec.requestBody(req, null, false, true);
    JsonArray tools = body.getJsonArray("tools");
    assertNull(tools.getJsonObject(0).getValue("cache_control"));
    assertEquals("ephemeral", tools.getJsonObject(1).getJsonObject("cache_control").getString("type"));
    JsonObject lastBlock = body.getJsonArray("messages").getJsonObject(2).getJsonArray("content").getJsonObject(0);
    assertEquals("tool_result", lastBlock.getString("type"));
    assertEquals("ephemeral", lastBlock.getJsonObject("cache_control").getString("type"));
    assertEquals(before, req.getMessages().encode(), "the request's history is unchanged");
    assertFalse(body.getJsonArray("messages").getJsonObject(0).getValue("content") instanceof JsonArray);
  }

  @Test
  void aPlainTextLastMessageBecomesABlockAndCachingCanBeOff() {
    ModelRequest req = new ModelRequest().setModel("m").setMessages(new JsonArray().add(new JsonObject().put("role", "user").put("content", "hello")));
    JsonObject body = AnthropicCodec.requestBody(req, null, false, true);
    JsonObject block = body.getJsonArray("messages").getJsonObject(0).getJsonArray("content").getJsonObject(0);
    assertEquals("hello", block.getString("text"));
    assertEquals("ephemeral", block.getJsonObject("cache_control").getString("type"));
    JsonObject off = AnthropicCodec.requestBody(req, null, false, false);
    assertEquals("hello", off.getJsonArray("messages").getJsonObject(0).getString("content"));
  }
}
