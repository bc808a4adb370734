package io.agentbus.model.openai;

import io.agentbus.model.ModelException;
import io.agentbus.model.ModelException.Kind;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.Usage;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Maps between the canonical (Anthropic-shaped) format and OpenAI Chat Completions.
 *
 * <p>To OpenAI: the system prompt becomes the first message; assistant {@code tool_use} blocks
 * become {@code tool_calls} (arguments as a JSON string); each user {@code tool_result} becomes one
 * {@code role: "tool"} message (errors prefixed with {@code "Error: "}, since there is no
 * {@code is_error}); thinking blocks are dropped. From OpenAI: {@code tool_calls} become
 * {@code tool_use} blocks (invalid argument JSON gives {@code input: {}} plus
 * {@code "_invalid_arguments": "<raw>"}); {@code finish_reason} maps to a stop reason.
 */
public final class OpenAiCodec {

  /** Field marking a tool_use whose OpenAI arguments were not a JSON object; holds the raw text. */
  public static final String INVALID_ARGUMENTS = "_invalid_arguments";
  /** Prefix of the text of a tool message that reports a failed tool call. */
  public static final String ERROR_PREFIX = "Error: ";

  private OpenAiCodec() {
  }

  /**
   * @param request the canonical request
   * @param defaultModel the model used when the request names none
   * @param stream whether to stream
   * @return the {@code /chat/completions} body
   * @throws ModelException if no model is known
   */
  public static JsonObject requestBody(ModelRequest request, String defaultModel, boolean stream) {
    String model = request.getModel() != null ? request.getModel() : defaultModel;
    if (model == null) {
      throw new ModelException(Kind.INVALID_REQUEST, "no model given in the request or the options", false, null);
    }
    JsonArray messages = new JsonArray();
    if (request.getSystem() != null && !request.getSystem().isEmpty()) {
      messages.add(new JsonObject().put("role", "system").put("content", request.getSystem()));
    }
    for (Object o : request.getMessages()) {
      JsonObject m = (JsonObject) o;
      if ("assistant".equals(m.getString("role"))) {
        messages.add(assistantMessage(m.getValue("content")));
      } else {
        userMessages(m.getValue("content"), messages);
      }
    }
    JsonObject body = new JsonObject().put("model", model).put("messages", messages)
        .put("max_completion_tokens", request.getMaxTokens());
    if (!request.getTools().isEmpty()) {
      JsonArray tools = new JsonArray();
      for (Object o : request.getTools()) {
        JsonObject def = (JsonObject) o;
        JsonObject fn = new JsonObject().put("name", def.getString("name"));
        if (def.getString("description") != null) {
          fn.put("description", def.getString("description"));
        }
        JsonObject schema = def.getJsonObject("input_schema");
        fn.put("parameters", schema != null ? schema : new JsonObject().put("type", "object"));
        tools.add(new JsonObject().put("type", "function").put("function", fn));
      }
      body.put("tools", tools);
      toolChoice(request.getToolChoice(), body);
    }
    if (request.getStopSequences() != null && !request.getStopSequences().isEmpty()) {
      body.put("stop", request.getStopSequences().copy());
    }
    if (request.getTemperature() != null) {
      body.put("temperature", request.getTemperature());
    }
    if (request.getMetadata() != null && request.getMetadata().getString("user_id") != null) {
      body.put("user", request.getMetadata().getString("user_id"));
    }
    if (stream) {
      body.put("stream", true).put("stream_options", new JsonObject().put("include_usage", true));
    }
    return body;
  }

  private static void toolChoice(JsonObject choice, JsonObject body) {
    if (choice == null) {
      return;
    }
    switch (choice.getString("type", "auto")) {
      case "any" -> body.put("tool_choice", "required");
      case "none" -> body.put("tool_choice", "none");
      case "tool" -> body.put("tool_choice", new JsonObject().put("type", "function")
          .put("function", new JsonObject().put("name", choice.getString("name"))));
      default -> body.put("tool_choice", "auto");
    }
    if (choice.getBoolean("disable_parallel_tool_use", false)) {
      body.put("parallel_tool_calls", false);
    }
  }

  private static JsonObject assistantMessage(Object content) {
    JsonObject out = new JsonObject().put("role", "assistant");
    if (content instanceof String s) {
      return out.put("content", s);
    }
    StringBuilder text = new StringBuilder();
    JsonArray calls = new JsonArray();
    for (Object o : (JsonArray) content) {
      JsonObject b = (JsonObject) o;
      switch (b.getString("type", "")) {
        case "text" -> text.append(b.getString("text", ""));
        case "tool_use" -> {
          String args = b.getString(INVALID_ARGUMENTS);
          if (args == null) {
            JsonObject input = b.getJsonObject("input");
            args = (input == null ? new JsonObject() : input).encode();
          }
          calls.add(new JsonObject().put("id", b.getString("id")).put("type", "function")
              .put("function", new JsonObject().put("name", b.getString("name")).put("arguments", args)));
        }
        default -> {
          // thinking / redacted_thinking have no Chat Completions equivalent
        }
      }
    }
    out.put("content", text.length() == 0 && !calls.isEmpty() ? null : text.toString());
    if (!calls.isEmpty()) {
      out.put("tool_calls", calls);
    }
    return out;
  }

  private static void userMessages(Object content, JsonArray out) {
    if (content instanceof String s) {
      out.add(new JsonObject().put("role", "user").put("content", s));
      return;
    }
    JsonArray parts = new JsonArray();
    for (Object o : (JsonArray) content) {
      JsonObject b = (JsonObject) o;
      switch (b.getString("type", "")) {
        case "tool_result" -> {
          String text = resultText(b.getValue("content"));
          if (b.getBoolean("is_error", false)) {
            text = ERROR_PREFIX + text;
          }
          out.add(new JsonObject().put("role", "tool").put("tool_call_id", b.getString("tool_use_id"))
              .put("content", text));
        }
        case "text" -> parts.add(new JsonObject().put("type", "text").put("text", b.getString("text", "")));
        case "image" -> {
          String url = imageUrl(b.getJsonObject("source"));
          if (url != null) {
            parts.add(new JsonObject().put("type", "image_url").put("image_url", new JsonObject().put("url", url)));
          }
        }
        default -> {
        }
      }
    }
    if (parts.size() == 1 && "text".equals(parts.getJsonObject(0).getString("type"))) {
      out.add(new JsonObject().put("role", "user").put("content", parts.getJsonObject(0).getString("text")));
    } else if (!parts.isEmpty()) {
      out.add(new JsonObject().put("role", "user").put("content", parts));
    }
  }

  private static String imageUrl(JsonObject source) {
    if (source == null) {
      return null;
    }
    return switch (source.getString("type", "")) {
      case "base64" -> "data:" + source.getString("media_type") + ";base64," + source.getString("data");
      case "url" -> source.getString("url");
      default -> null;
    };
  }

  private static String resultText(Object content) {
    if (content == null) {
      return "";
    }
    if (content instanceof String s) {
      return s;
    }
    StringBuilder sb = new StringBuilder();
    for (Object o : (JsonArray) content) {
      JsonObject b = (JsonObject) o;
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append("text".equals(b.getString("type")) ? b.getString("text", "") : "[" + b.getString("type") + " omitted]");
    }
    return sb.toString();
  }

  /**
   * @param body a {@code chat.completion} object
   * @param requestId the request id header, may be null
   * @return the canonical reply
   * @throws ModelException (protocol) when the body is not a {@code chat.completion}
   */
  public static ModelResponse response(JsonObject body, String requestId) {
    if (!(body.getValue("choices") instanceof JsonArray choices) || choices.isEmpty()
        || !(choices.getValue(0) instanceof JsonObject choice) || !(choice.getValue("message") instanceof JsonObject message)) {
      throw new ModelException(ModelException.Kind.PROTOCOL, "the response is not a Chat Completions response (no "
          + "choices[0].message)" + (requestId == null ? "" : " [request-id " + requestId + "]"), false, null);
    }
    JsonArray content = new JsonArray();
    String text = message.getString("content");
    String refusal = message.getString("refusal");
    if (text != null && !text.isEmpty()) {
      content.add(new JsonObject().put("type", "text").put("text", text));
    } else if (refusal != null && !refusal.isEmpty()) {
      content.add(new JsonObject().put("type", "text").put("text", refusal));
    }
    JsonArray calls = message.getJsonArray("tool_calls", new JsonArray());
    for (Object o : calls) {
      JsonObject call = (JsonObject) o;
      JsonObject fn = call.getJsonObject("function", new JsonObject());
      content.add(toolUse(call.getString("id"), fn.getString("name"), fn.getString("arguments")));
    }
    String finish = choice.getString("finish_reason");
    String stop = stopReason(finish, !calls.isEmpty(), refusal != null);
    return new ModelResponse(body.getString("id"), body.getString("model"), content, stop, null, null,
        usage(body.getJsonObject("usage")), requestId, body);
  }

  /**
   * Builds a canonical tool_use block; arguments that are not a JSON object give {@code input: {}}
   * plus {@value #INVALID_ARGUMENTS} holding the raw text.
   *
   * @param id the tool call id
   * @param name the function name
   * @param arguments the raw argument string
   * @return the block
   */
  public static JsonObject toolUse(String id, String name, String arguments) {
    JsonObject block = new JsonObject().put("type", "tool_use").put("id", id).put("name", name);
    if (arguments == null || arguments.isBlank()) {
      return block.put("input", new JsonObject());
    }
    try {
      return block.put("input", new JsonObject(arguments));
    } catch (DecodeException | ClassCastException e) {
      return block.put("input", new JsonObject()).put(INVALID_ARGUMENTS, arguments);
    }
  }

  /**
   * @param finishReason the OpenAI {@code finish_reason}
   * @param hasToolCalls whether the message carries tool calls (this drives {@code tool_use})
   * @param refusal whether the message carries a refusal
   * @return the canonical stop reason; unknown values pass through
   */
  public static String stopReason(String finishReason, boolean hasToolCalls, boolean refusal) {
    if (hasToolCalls) {
      return "tool_use";
    }
    if (refusal) {
      return "refusal";
    }
    if (finishReason == null) {
      return null;
    }
    return switch (finishReason) {
      case "stop", "tool_calls", "function_call" -> "end_turn";
      case "length" -> "max_tokens";
      case "content_filter" -> "refusal";
      default -> finishReason;
    };
  }

  /**
   * @param usage an OpenAI usage object, may be null
   * @return canonical usage: input excludes cached prompt tokens, which count as cache reads
   */
  public static Usage usage(JsonObject usage) {
    if (usage == null) {
      return Usage.ZERO;
    }
    long prompt = usage.getLong("prompt_tokens", 0L);
    long completion = usage.getLong("completion_tokens", 0L);
    JsonObject details = usage.getJsonObject("prompt_tokens_details");
    long cached = details == null || details.getLong("cached_tokens") == null ? 0 : details.getLong("cached_tokens");
    return new Usage(Math.max(0, prompt - cached), completion, 0, cached);
  }
}
