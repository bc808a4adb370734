package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Renders replies as Messages API bodies and SSE event sequences. */
final class AnthropicWriter {

  private AnthropicWriter() {
  }

  static JsonObject message(PreparedReply r) {
    JsonArray content = new JsonArray();
    for (Object o : r.content()) {
      JsonObject b = ((JsonObject) o).copy();
      b.remove("_raw_arguments");
      content.add(b);
    }
    return new JsonObject()
        .put("id", r.id())
        .put("type", "message")
        .put("role", "assistant")
        .put("model", r.model())
        .put("content", content)
        .put("stop_reason", r.stopReason())
        .put("stop_sequence", null)
        .put("usage", usage(r.inputTokens(), r.outputTokens()));
  }

  private static JsonObject usage(long in, long out) {
    return new JsonObject()
        .put("input_tokens", in)
        .put("cache_creation_input_tokens", 0)
        .put("cache_read_input_tokens", 0)
        .put("output_tokens", out)
        .put("service_tier", "standard");
  }

  /** The SSE frames of a streamed reply, in order (B7). */
  static List<String> events(PreparedReply r) {
    List<String> frames = new ArrayList<>();
    JsonObject start = message(r).put("content", new JsonArray()).put("stop_reason", null)
        .put("usage", usage(r.inputTokens(), 1));
    frames.add(frame("message_start", new JsonObject().put("type", "message_start").put("message", start)));
    frames.add(frame("ping", new JsonObject().put("type", "ping")));
    JsonArray content = message(r).getJsonArray("content");
    for (int i = 0; i < content.size(); i++) {
      JsonObject b = content.getJsonObject(i);
      String type = b.getString("type");
      JsonObject startBlock;
      List<JsonObject> deltas = new ArrayList<>();
      switch (type) {
        case "text" -> {
          startBlock = new JsonObject().put("type", "text").put("text", "");
          for (String p : PreparedReply.pieces(b.getString("text", ""), 12)) {
            deltas.add(new JsonObject().put("type", "text_delta").put("text", p));
          }
        }
        case "tool_use" -> {
          startBlock = new JsonObject().put("type", "tool_use").put("id", b.getString("id"))
              .put("name", b.getString("name")).put("input", new JsonObject());
          deltas.add(new JsonObject().put("type", "input_json_delta").put("partial_json", ""));
          for (String p : PreparedReply.pieces(b.getJsonObject("input", new JsonObject()).encode(), 10)) {
            deltas.add(new JsonObject().put("type", "input_json_delta").put("partial_json", p));
          }
        }
        case "thinking" -> {
          startBlock = new JsonObject().put("type", "thinking").put("thinking", "").put("signature", "");
          for (String p : PreparedReply.pieces(b.getString("thinking", ""), 12)) {
            deltas.add(new JsonObject().put("type", "thinking_delta").put("thinking", p));
          }
          deltas.add(new JsonObject().put("type", "signature_delta").put("signature", b.getString("signature", "")));
        }
        default -> startBlock = b;
      }
      frames.add(frame("content_block_start", new JsonObject().put("type", "content_block_start").put("index", i)
          .put("content_block", startBlock)));
      for (JsonObject d : deltas) {
        frames.add(frame("content_block_delta", new JsonObject().put("type", "content_block_delta").put("index", i)
            .put("delta", d)));
      }
      frames.add(frame("content_block_stop", new JsonObject().put("type", "content_block_stop").put("index", i)));
    }
    frames.add(frame("message_delta", new JsonObject().put("type", "message_delta")
        .put("delta", new JsonObject().put("stop_reason", r.stopReason()).put("stop_sequence", null))
        .put("usage", new JsonObject().put("output_tokens", r.outputTokens()))));
    frames.add(frame("message_stop", new JsonObject().put("type", "message_stop")));
    return frames;
  }

  static String errorFrame(String type, String message, String requestId) {
    return frame("error", new ApiError(0, type, message, null, null).anthropicBody(requestId));
  }

  private static String frame(String event, JsonObject data) {
    return "event: " + event + "\ndata: " + data.encode() + "\n\n";
  }
}
