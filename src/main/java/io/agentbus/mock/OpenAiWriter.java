package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Renders replies as Chat Completions bodies and {@code chat.completion.chunk} streams. */
final class OpenAiWriter {

  private OpenAiWriter() {
  }

  static String finishReason(String stopReason) {
    return switch (stopReason == null ? "end_turn" : stopReason) {
      case "tool_use" -> "tool_calls";
      case "max_tokens" -> "length";
      case "refusal" -> "content_filter";
      default -> "stop";
    };
  }

  private static String text(PreparedReply r) {
    StringBuilder sb = new StringBuilder();
    for (Object o : r.content()) {
      JsonObject b = (JsonObject) o;
      if ("text".equals(b.getString("type"))) {
        sb.append(b.getString("text", ""));
      }
    }
    return sb.toString();
  }

  private static List<JsonObject> toolCalls(PreparedReply r) {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : r.content()) {
      JsonObject b = (JsonObject) o;
      if ("tool_use".equals(b.getString("type"))) {
        String args = b.getString("_raw_arguments", b.getJsonObject("input", new JsonObject()).encode());
        out.add(new JsonObject().put("id", b.getString("id")).put("type", "function")
            .put("function", new JsonObject().put("name", b.getString("name")).put("arguments", args)));
      }
    }
    return out;
  }

  static JsonObject usage(PreparedReply r) {
    return new JsonObject()
        .put("prompt_tokens", r.inputTokens())
        .put("completion_tokens", r.outputTokens())
        .put("total_tokens", r.inputTokens() + r.outputTokens())
        .put("prompt_tokens_details", new JsonObject().put("cached_tokens", 0).put("audio_tokens", 0))
        .put("completion_tokens_details", new JsonObject().put("reasoning_tokens", 0).put("audio_tokens", 0)
            .put("accepted_prediction_tokens", 0).put("rejected_prediction_tokens", 0));
  }

  static JsonObject completion(PreparedReply r) {
    String text = text(r);
    List<JsonObject> calls = toolCalls(r);
    JsonObject message = new JsonObject().put("role", "assistant")
        .put("content", text.isEmpty() && !calls.isEmpty() ? null : text)
        .put("refusal", null)
        .put("annotations", new JsonArray());
    if (!calls.isEmpty()) {
      message.put("tool_calls", new JsonArray(new ArrayList<>(calls)));
    }
    return base(r, "chat.completion")
        .put("choices", new JsonArray().add(new JsonObject().put("index", 0).put("message", message)
            .put("logprobs", null).put("finish_reason", finishReason(r.stopReason()))))
        .put("usage", usage(r))
        .put("service_tier", "default");
  }

  private static JsonObject base(PreparedReply r, String object) {
    return new JsonObject().put("id", r.id()).put("object", object)
        .put("created", System.currentTimeMillis() / 1000).put("model", r.model()).put("system_fingerprint", null);
  }

  /** The SSE frames of a streamed completion, ending with {@code [DONE]} (C5). */
  static List<String> chunks(PreparedReply r, boolean includeUsage) {
    List<String> frames = new ArrayList<>();
    frames.add(chunk(r, new JsonObject().put("role", "assistant").put("content", "").put("refusal", null), null, includeUsage));
    for (String p : PreparedReply.pieces(text(r), 12)) {
      frames.add(chunk(r, new JsonObject().put("content", p), null, includeUsage));
    }
    List<JsonObject> calls = toolCalls(r);
    for (int i = 0; i < calls.size(); i++) {
      JsonObject call = calls.get(i);
      JsonObject fn = call.getJsonObject("function");
      frames.add(chunk(r, new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", i)
          .put("id", call.getString("id")).put("type", "function")
          .put("function", new JsonObject().put("name", fn.getString("name")).put("arguments", "")))), null, includeUsage));
      for (String p : PreparedReply.pieces(fn.getString("arguments"), 10)) {
        frames.add(chunk(r, new JsonObject().put("tool_calls", new JsonArray().add(new JsonObject().put("index", i)
            .put("function", new JsonObject().put("arguments", p)))), null, includeUsage));
      }
    }
    frames.add(chunk(r, new JsonObject(), finishReason(r.stopReason()), includeUsage));
    if (includeUsage) {
      frames.add(data(base(r, "chat.completion.chunk").put("choices", new JsonArray()).put("usage", usage(r))));
    }
    frames.add("data: [DONE]\n\n");
    return frames;
  }

  private static String chunk(PreparedReply r, JsonObject delta, String finish, boolean includeUsage) {
    JsonObject c = base(r, "chat.completion.chunk").put("choices", new JsonArray().add(new JsonObject()
        .put("index", 0).put("delta", delta).put("logprobs", null).put("finish_reason", finish)));
    if (includeUsage) {
      c.put("usage", null);
    }
    return data(c);
  }

  static String errorFrame(String type, String message) {
    return data(new ApiError(0, type, message, null, null).openAiBody());
  }

  private static String data(JsonObject json) {
    return "data: " + json.encode() + "\n\n";
  }
}
