package io.agentbus.mcp.server;

import io.agentbus.mcp.McpRoots;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The body of a {@code tools/call} event-bus request:
 * {@code {name, arguments?, timeoutMs?, budgetMs?, progressAddress?, progressFields?, tenant?, conversationId?,
 * toolUseId?, callerAddress?, roots?}}.
 *
 * @param name the tool's MCP name
 * @param arguments its arguments
 * @param timeoutMs the per-call timeout (restarted by progress), or {@code null} for the server's
 * @param budgetMs what is left of the caller's deadline when it sent the request: the call
 *     (waiting for the server and for a slot included) never runs longer, whatever progress
 *     arrives; {@code null}: the server's {@code maxTotalTimeoutMs} alone bounds it
 * @param progressAddress where progress is published, or {@code null}
 * @param progressFields copied into every progress message, or {@code null}
 * @param tenant the tenant whose conversation made the call, or {@code null}
 * @param conversationId the conversation that made the call, or {@code null}
 * @param toolUseId the model's id of the tool_use block, or {@code null}
 * @param callerAddress where the server's requests during the call (elicitation, sampling) are
 *     sent: the conversation instance running the turn, or {@code null}
 * @param roots the calling conversation's roots ({@code [{uri, name?}]}), or {@code null} for the server's
 */
record ToolCallRequest(String name, JsonObject arguments, Long timeoutMs, Long budgetMs, String progressAddress,
                       JsonObject progressFields, String tenant, String conversationId, String toolUseId,
                       String callerAddress, JsonArray roots) {

  /** @throws IllegalArgumentException naming the bad field */
  static ToolCallRequest parse(JsonObject body) {
    if (body == null) {
      throw new IllegalArgumentException("tools/call needs a JSON body {name, arguments}");
    }
    if (!(body.getValue("name") instanceof String name) || name.isEmpty()) {
      throw new IllegalArgumentException("field 'name' must be a non-empty string");
    }
    Object args = body.getValue("arguments");
    if (args != null && !(args instanceof JsonObject)) {
      throw new IllegalArgumentException("field 'arguments' must be an object");
    }
    Long timeout = positive(body, "timeoutMs", 1);
    Long budget = positive(body, "budgetMs", 0);
    Object progress = body.getValue("progressAddress");
    if (progress != null && !(progress instanceof String)) {
      throw new IllegalArgumentException("field 'progressAddress' must be a string");
    }
    Object fields = body.getValue("progressFields");
    if (fields != null && !(fields instanceof JsonObject)) {
      throw new IllegalArgumentException("field 'progressFields' must be an object");
    }
    return new ToolCallRequest(name, args == null ? new JsonObject() : (JsonObject) args, timeout, budget,
      (String) progress, (JsonObject) fields, optionalString(body, "tenant"), optionalString(body, "conversationId"),
      optionalString(body, "toolUseId"), optionalString(body, "callerAddress"), McpRoots.check(body.getValue("roots"), "field 'roots'"));
  }

  private static String optionalString(JsonObject body, String field) {
    Object value = body.getValue(field);
    if (value != null && !(value instanceof String)) {
      throw new IllegalArgumentException("field '" + field + "' must be a string");
    }
    return (String) value;
  }

  private static Long positive(JsonObject body, String field, long min) {
    Object value = body.getValue(field);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number n) || n.longValue() < min) {
      throw new IllegalArgumentException("field '" + field + "' must be a number >= " + min);
    }
    return n.longValue();
  }
}
