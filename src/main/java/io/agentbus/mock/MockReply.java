package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What the mock answers, in canonical blocks. Tool_use blocks may lack an {@code id} (the endpoint
 * assigns one) and may carry {@code _raw_arguments} (sent verbatim as OpenAI arguments).
 *
 * @param content the content blocks
 * @param stopReason the stop reason
 * @param usage explicit usage ({@code input_tokens}, {@code output_tokens}, ...), or null to
 *     estimate it from the sizes
 */
public record MockReply(JsonArray content, String stopReason, JsonObject usage) {

  /**
   * @param text the answer
   * @return an end_turn text reply
   */
  public static MockReply text(String text) {
    return new MockReply(new JsonArray().add(new JsonObject().put("type", "text").put("text", text)), "end_turn", null);
  }

  /**
   * Reads a scripted reply: {@code {"content": [...], "stop_reason"?, "usage"?}} or {@code {"text":
   * "..."}}; the stop reason defaults to {@code tool_use} when there is a tool_use block, else
   * {@code end_turn}.
   *
   * @param json the scripted reply
   * @return the reply
   */
  public static MockReply fromJson(JsonObject json) {
    JsonArray content = json.getJsonArray("content");
    if (content == null) {
      content = new JsonArray().add(new JsonObject().put("type", "text").put("text", json.getString("text", "")));
    }
    String stop = json.getString("stop_reason");
    if (stop == null) {
      boolean tools = content.stream().anyMatch(b -> b instanceof JsonObject o && "tool_use".equals(o.getString("type")));
      stop = tools ? "tool_use" : "end_turn";
    }
    return new MockReply(content.copy(), stop, json.getJsonObject("usage"));
  }
}
