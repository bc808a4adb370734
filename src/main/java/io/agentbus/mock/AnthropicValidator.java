package io.agentbus.mock;

import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Validates a Messages API request like the real API, with its error messages. */
final class AnthropicValidator {

  static final Pattern TOOL_NAME = Pattern.compile("^[a-zA-Z0-9_-]{1,64}$");

  private AnthropicValidator() {
  }

  /**
   * @param headers the request headers
   * @param expectedKey the expected key, or null for any non-empty one
   * @return an authentication / header error, or null
   */
  static ApiError checkHeaders(MultiMap headers, String expectedKey) {
    String key = headers.get("x-api-key");
    if (key == null || key.isBlank()) {
      return new ApiError(401, "authentication_error", "x-api-key header is required", null, null);
    }
    if (expectedKey != null && !expectedKey.equals(key)) {
      return new ApiError(401, "authentication_error", "invalid x-api-key", null, null);
    }
    if (headers.get("anthropic-version") == null) {
      return ApiError.invalid("anthropic-version: header is required");
    }
    return null;
  }

  /**
   * @param body the parsed body
   * @return the first validation error, or null
   */
  static ApiError checkBody(JsonObject body) {
    if (!(body.getValue("model") instanceof String)) {
      return ApiError.invalid("model: Field required");
    }
    if (!(body.getValue("max_tokens") instanceof Number mt)) {
      return ApiError.invalid("max_tokens: Field required");
    }
    if (mt.longValue() < 1) {
      return ApiError.invalid("max_tokens: Input should be greater than or equal to 1");
    }
    if (!(body.getValue("messages") instanceof JsonArray messages)) {
      return ApiError.invalid("messages: Field required");
    }
    Object system = body.getValue("system");
    if (system != null && !(system instanceof String) && !(system instanceof JsonArray)) {
      return ApiError.invalid("system: Input should be a valid string");
    }
    ApiError e = checkTools(body.getValue("tools"));
    if (e != null) {
      return e;
    }
    return checkMessages(messages);
  }

  private static ApiError checkTools(Object value) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray tools)) {
      return ApiError.invalid("tools: Input should be a valid list");
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < tools.size(); i++) {
      if (!(tools.getValue(i) instanceof JsonObject tool)) {
        return ApiError.invalid("tools." + i + ": Input should be a valid dictionary");
      }
      String type = tool.getString("type");
      if (type != null && !"custom".equals(type)) {
        continue;
      }
      if (!(tool.getValue("name") instanceof String name)) {
        return ApiError.invalid("tools." + i + ".custom.name: Field required");
      }
      if (!TOOL_NAME.matcher(name).matches()) {
        return ApiError.invalid("tools." + i + ".custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
      }
      if (!(tool.getValue("input_schema") instanceof JsonObject schema)) {
        return ApiError.invalid("tools." + i + ".custom.input_schema: Field required");
      }
      if (!"object".equals(schema.getValue("type"))) {
        return ApiError.invalid("tools." + i + ".custom.input_schema.type: Input should be 'object'");
      }
      if (!names.add(name)) {
        return ApiError.invalid("tools: Tool names must be unique.");
      }
    }
    return null;
  }

  private static ApiError checkMessages(JsonArray messages) {
    if (messages.isEmpty()) {
      return ApiError.invalid("messages: at least one message is required");
    }
    for (int i = 0; i < messages.size(); i++) {
      if (!(messages.getValue(i) instanceof JsonObject m)) {
        return ApiError.invalid("messages." + i + ": Input should be a valid dictionary");
      }
      Object role = m.getValue("role");
      if (!"user".equals(role) && !"assistant".equals(role)) {
        return ApiError.invalid("messages." + i + ".role: Input should be 'user' or 'assistant'");
      }
      Object content = m.getValue("content");
      if (!(content instanceof String) && !(content instanceof JsonArray)) {
        return ApiError.invalid("messages." + i + ".content: Input should be a valid list");
      }
      if (content instanceof JsonArray blocks) {
        for (int j = 0; j < blocks.size(); j++) {
          if (!(blocks.getValue(j) instanceof JsonObject b) || !(b.getValue("type") instanceof String)) {
            return ApiError.invalid("messages." + i + ".content." + j + ".type: Field required");
          }
        }
      }
    }
    for (int i = 0; i < messages.size(); i++) {
      JsonObject m = messages.getJsonObject(i);
      JsonObject prev = i > 0 ? messages.getJsonObject(i - 1) : null;
      ApiError e = "assistant".equals(m.getString("role")) ? checkToolUsesAnswered(messages, i)
          : checkToolResultsExpected(m, i, prev);
      if (e != null) {
        return e;
      }
    }
    return null;
  }

  /** Every tool_use of assistant message i needs a leading tool_result in message i+1. */
  private static ApiError checkToolUsesAnswered(JsonArray messages, int i) {
    List<String> ids = ids(messages.getJsonObject(i), "tool_use", "id");
    if (ids.isEmpty()) {
      return null;
    }
    JsonObject next = i + 1 < messages.size() ? messages.getJsonObject(i + 1) : null;
    List<String> leading = new ArrayList<>();
    List<String> all = new ArrayList<>();
    if (next != null && "user".equals(next.getString("role")) && next.getValue("content") instanceof JsonArray blocks) {
      boolean atStart = true;
      for (Object o : blocks) {
        JsonObject b = (JsonObject) o;
        boolean isResult = "tool_result".equals(b.getString("type"));
        atStart &= isResult;
        if (isResult) {
          all.add(b.getString("tool_use_id"));
          if (atStart) {
            leading.add(b.getString("tool_use_id"));
          }
        }
      }
    }
    if (all.containsAll(ids) && !leading.containsAll(ids)) {
      return ApiError.invalid("messages." + (i + 1) + ": Did not find " + ids.size()
          + " tool_result block(s) at the beginning of this message. Messages following tool_use blocks must "
          + "begin with a matching number of tool_result blocks.");
    }
    List<String> missing = new ArrayList<>(ids);
    missing.removeAll(all);
    if (!missing.isEmpty()) {
      return ApiError.invalid("messages." + i + ": tool_use ids were found without tool_result blocks immediately after: "
          + String.join(", ", missing) + ". Each tool_use block must have a corresponding tool_result block in the next message.");
    }
    return null;
  }

  /** Every tool_result in user message i must answer a tool_use of message i-1. */
  private static ApiError checkToolResultsExpected(JsonObject m, int i, JsonObject prev) {
    List<String> resultIds = ids(m, "tool_result", "tool_use_id");
    if (resultIds.isEmpty()) {
      return null;
    }
    List<String> useIds = prev == null || !"assistant".equals(prev.getString("role")) ? List.of()
        : ids(prev, "tool_use", "id");
    JsonArray blocks = m.getJsonArray("content");
    for (int j = 0; j < blocks.size(); j++) {
      JsonObject b = blocks.getJsonObject(j);
      if ("tool_result".equals(b.getString("type")) && !useIds.contains(b.getString("tool_use_id"))) {
        return ApiError.invalid("messages." + i + ".content." + j + ": unexpected tool_use_id found in tool_result blocks: "
            + b.getString("tool_use_id") + ". Each tool_result block must have a corresponding tool_use block in the previous message.");
      }
    }
    return null;
  }

  private static List<String> ids(JsonObject message, String type, String field) {
    List<String> out = new ArrayList<>();
    if (message.getValue("content") instanceof JsonArray blocks) {
      for (Object o : blocks) {
        JsonObject b = (JsonObject) o;
        if (type.equals(b.getString("type"))) {
          out.add(String.valueOf(b.getValue(field)));
        }
      }
    }
    return out;
  }
}
