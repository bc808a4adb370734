package io.agentbus.mock;

import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** Validates a Chat Completions request like the real API, with its error messages. */
final class OpenAiValidator {

  private static final Pattern NAME = Pattern.compile("^[a-zA-Z0-9_-]+$");
  private static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");

  private OpenAiValidator() {
  }

  static ApiError checkHeaders(MultiMap headers, String expectedKey) {
    String auth = headers.get("authorization");
    if (auth == null || !auth.startsWith("Bearer ") || auth.substring(7).isBlank()) {
      return new ApiError(401, "invalid_request_error", "You didn't provide an API key. You need to provide your API key "
          + "in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", null, null);
    }
    if (expectedKey != null && !expectedKey.equals(auth.substring(7).trim())) {
      return new ApiError(401, "invalid_request_error", "Incorrect API key provided.", null, "invalid_api_key");
    }
    return null;
  }

  static ApiError checkBody(JsonObject body) {
    if (!(body.getValue("model") instanceof String)) {
      return ApiError.invalid("you must provide a model parameter", null, null);
    }
    if (!(body.getValue("messages") instanceof JsonArray messages)) {
      return ApiError.invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
    }
    if (messages.isEmpty()) {
      return ApiError.invalid("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty "
          + "array instead.", "messages", "empty_array");
    }
    ApiError e = checkTools(body.getValue("tools"));
    return e != null ? e : checkMessages(messages);
  }

  private static ApiError checkTools(Object value) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray tools)) {
      return ApiError.invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type");
    }
    for (int i = 0; i < tools.size(); i++) {
      String p = "tools[" + i + "]";
      if (!(tools.getValue(i) instanceof JsonObject tool) || !"function".equals(tool.getValue("type"))) {
        return ApiError.invalid("Missing required parameter: '" + p + ".type'.", p + ".type", "missing_required_parameter");
      }
      if (!(tool.getValue("function") instanceof JsonObject fn) || !(fn.getValue("name") instanceof String name)) {
        return ApiError.invalid("Missing required parameter: '" + p + ".function.name'.", p + ".function.name",
            "missing_required_parameter");
      }
      if (name.length() > 64) {
        return ApiError.invalid("Invalid '" + p + ".function.name': string too long. Expected a string with maximum "
            + "length 64, but got a string with length " + name.length() + " instead.", p + ".function.name", "string_above_max_length");
      }
      if (!NAME.matcher(name).matches()) {
        return ApiError.invalid("Invalid '" + p + ".function.name': string does not match pattern. Expected a string "
            + "that matches the pattern '^[a-zA-Z0-9_-]+$'.", p + ".function.name", "invalid_value");
      }
    }
    return null;
  }

  private static ApiError checkMessages(JsonArray messages) {
    List<String> awaited = new ArrayList<>();
    int awaitingFrom = -1;
    for (int i = 0; i < messages.size(); i++) {
      String p = "messages[" + i + "]";
      if (!(messages.getValue(i) instanceof JsonObject m)) {
        return ApiError.invalid("Invalid type for '" + p + "': expected an object.", p, "invalid_type");
      }
      Object role = m.getValue("role");
      if (!(role instanceof String r) || !ROLES.contains(r)) {
        return ApiError.invalid("Invalid value: '" + role + "'. Supported values are: 'system', 'assistant', 'user', "
            + "'function', 'tool', and 'developer'.", p + ".role", "invalid_value");
      }
      if ("tool".equals(r)) {
        String id = m.getString("tool_call_id");
        if (awaitingFrom < 0 || !awaited.remove(id)) {
          return ApiError.invalid("Invalid parameter: messages with role 'tool' must be a response to a preceeding "
              + "message with 'tool_calls'.", "messages.[" + i + "].role", null);
        }
        continue;
      }
      if (!awaited.isEmpty()) {
        return pairing(awaitingFrom, awaited);
      }
      awaitingFrom = -1;
      if ("assistant".equals(r)) {
        JsonArray calls = m.getJsonArray("tool_calls");
        if (calls != null && !calls.isEmpty()) {
          for (Object c : calls) {
            awaited.add(((JsonObject) c).getString("id"));
          }
          awaitingFrom = i;
        }
        if (m.getValue("content") == null && (calls == null || calls.isEmpty())) {
          return ApiError.invalid("Invalid value for 'content': expected a string, got null.", p + ".content", null);
        }
      } else if (m.getValue("content") == null) {
        return ApiError.invalid("Invalid value for 'content': expected a string, got null.", p + ".content", null);
      }
    }
    return awaited.isEmpty() ? null : pairing(awaitingFrom, awaited);
  }

  private static ApiError pairing(int index, List<String> missing) {
    return ApiError.invalid("An assistant message with 'tool_calls' must be followed by tool messages responding to "
        + "each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + String.join(", ", missing), "messages.[" + index + "].role", null);
  }
}
