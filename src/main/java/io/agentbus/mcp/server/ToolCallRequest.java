package io.agentbus.mcp.server;

import io.vertx.core.json.JsonObject;

/**
 * The body of a {@code tools/call} event-bus request:
 * {@code {name, arguments?, timeoutMs?, progressAddress?}}.
 */
record ToolCallRequest(String name, JsonObject arguments, Long timeoutMs, String progressAddress) {

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
    Object timeout = body.getValue("timeoutMs");
    if (timeout != null && (!(timeout instanceof Number n) || n.longValue() < 1)) {
      throw new IllegalArgumentException("field 'timeoutMs' must be a positive number");
    }
    Object progress = body.getValue("progressAddress");
    if (progress != null && !(progress instanceof String)) {
      throw new IllegalArgumentException("field 'progressAddress' must be a string");
    }
    return new ToolCallRequest(name, args == null ? new JsonObject() : (JsonObject) args,
      timeout == null ? null : ((Number) timeout).longValue(), (String) progress);
  }
}
