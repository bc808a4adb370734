package io.agentbus.model;

import io.agentbus.metrics.ModelCallResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A complete model reply in the canonical (Anthropic-shaped) format.
 *
 * @param id the provider's message / completion id
 * @param model the model that answered
 * @param content the assistant content blocks ({@code text}, {@code tool_use {id, name, input}},
 *     {@code thinking {thinking, signature}}, {@code redacted_thinking {data}}, ...); store it
 *     verbatim in the history. An OpenAI {@code tool_use} whose arguments were not valid JSON has
 *     {@code input: {}} and {@code "_invalid_arguments": "<raw>"}
 * @param stopReason {@code end_turn}, {@code tool_use}, {@code max_tokens}, {@code stop_sequence},
 *     {@code refusal}, {@code pause_turn}, ... (unknown values are passed through; may be null)
 * @param stopSequence the stop sequence hit, or null
 * @param stopDetails the provider's {@code stop_details} object, or null
 * @param usage token usage
 * @param requestId the provider's request id header, or null
 * @param raw the provider's raw response body (for a stream: the assembled Anthropic message, or
 *     the last OpenAI chunk plus usage)
 */
public record ModelResponse(String id, String model, JsonArray content, String stopReason, String stopSequence,
    JsonObject stopDetails, Usage usage, String requestId, JsonObject raw) implements ModelCallResult {

  /** The {@code stop_reason} asking the caller to run tools. */
  public static final String TOOL_USE = "tool_use";

  /**
   * @return the {@code tool_use} blocks, in order
   */
  public List<JsonObject> toolUses() {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : content) {
      if (o instanceof JsonObject b && TOOL_USE.equals(b.getString("type"))) {
        out.add(b);
      }
    }
    return out;
  }

  /**
   * @return the concatenated text of all {@code text} blocks
   */
  public String text() {
    StringBuilder sb = new StringBuilder();
    for (Object o : content) {
      if (o instanceof JsonObject b && "text".equals(b.getString("type"))) {
        sb.append(b.getString("text", ""));
      }
    }
    return sb.toString();
  }

  /**
   * @return the assistant message to append to the history: {@code {role: "assistant", content}}
   */
  public JsonObject toMessage() {
    return new JsonObject().put("role", "assistant").put("content", content.copy());
  }

  /**
   * @return an Anthropic-shaped message object of this response
   */
  public JsonObject toJson() {
    return new JsonObject()
        .put("id", id)
        .put("type", "message")
        .put("role", "assistant")
        .put("model", model)
        .put("content", content.copy())
        .put("stop_reason", stopReason)
        .put("stop_sequence", stopSequence)
        .put("stop_details", stopDetails)
        .put("usage", usage.toJson())
        .put("request_id", requestId);
  }
}
