package io.agentbus.mcp;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Checks a list of MCP roots: {@code [{uri, name?}]}, each {@code uri} a {@code file://} URI
 * (what the spec allows), at most {@link #MAX_ROOTS} of them.
 */
public final class McpRoots {

  /** The most roots a server or a conversation may be given. */
  public static final int MAX_ROOTS = 100;

  private McpRoots() {
  }

  /**
   * @param value the raw value ({@code null}: none)
   * @param where names the field in the error, e.g. {@code "server 'files': field 'roots'"}
   * @return a checked copy, or {@code null} when {@code value} is {@code null}
   * @throws IllegalArgumentException naming the root and what is wrong with it
   */
  public static JsonArray check(Object value, String where) {
    if (value == null) {
      return null;
    }
    if (!(value instanceof JsonArray roots)) {
      throw new IllegalArgumentException(where + " must be an array of {uri, name?}");
    }
    if (roots.size() > MAX_ROOTS) {
      throw new IllegalArgumentException(where + " has " + roots.size() + " roots; at most " + MAX_ROOTS + " are allowed");
    }
    JsonArray out = new JsonArray();
    for (int i = 0; i < roots.size(); i++) {
      if (!(roots.getValue(i) instanceof JsonObject root) || !(root.getValue("uri") instanceof String uri)
        || !uri.startsWith("file://")) {
        throw new IllegalArgumentException(where + "[" + i + "] must be {\"uri\": \"file://...\", \"name\"?: string}");
      }
      Object name = root.getValue("name");
      if (name != null && !(name instanceof String)) {
        throw new IllegalArgumentException(where + "[" + i + "].name must be a string");
      }
      JsonObject copy = new JsonObject().put("uri", uri);
      if (name != null) {
        copy.put("name", name);
      }
      out.add(copy);
    }
    return out;
  }
}
