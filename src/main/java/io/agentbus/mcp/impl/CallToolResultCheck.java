package io.agentbus.mcp.impl;

import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * Checks a {@code tools/call} result against the MCP {@code CallToolResult} schema, as far
 * as the host reads it: {@code isError} a boolean, {@code content} an array of content
 * blocks (objects with a string {@code type}; the known types with their required fields of
 * the right type), {@code structuredContent} and {@code _meta} objects. Optional members may
 * be absent; a missing {@code content} counts as empty, as in the official SDKs. Unknown
 * block types and unknown members pass, so that newer servers keep working.
 */
final class CallToolResultCheck {

  private CallToolResultCheck() {
  }

  /** @return what is wrong with {@code result}, naming the member; {@code null} when nothing is */
  static String problem(JsonObject result) {
    Object isError = result.getValue("isError");
    if (isError != null && !(isError instanceof Boolean)) {
      return "\"isError\" is " + JsonRpc.describe(isError) + ", not a boolean";
    }
    String wrong = notObject(result, "structuredContent", "\"structuredContent\"");
    if (wrong == null) {
      wrong = notObject(result, "_meta", "\"_meta\"");
    }
    if (wrong != null) {
      return wrong;
    }
    Object content = result.getValue("content");
    if (content == null) {
      return null;
    }
    if (!(content instanceof JsonArray blocks)) {
      return "\"content\" is " + JsonRpc.describe(content) + ", not an array";
    }
    for (int i = 0; i < blocks.size(); i++) {
      String p = block(blocks.getValue(i), "content[" + i + "]");
      if (p != null) {
        return p;
      }
    }
    return null;
  }

  private static String block(Object value, String where) {
    if (!(value instanceof JsonObject b)) {
      return where + " is " + JsonRpc.describe(value) + ", not a content block object";
    }
    if (!(b.getValue("type") instanceof String type)) {
      return notString(b.getValue("type"), where + ".type");
    }
    String p = notObject(b, "annotations", where + ".annotations");
    if (p == null) {
      p = notObject(b, "_meta", where + "._meta");
    }
    if (p != null) {
      return p;
    }
    return switch (type) {
      case "text" -> required(b, "text", where);
      case "image", "audio" -> first(required(b, "data", where), required(b, "mimeType", where));
      case "resource_link" -> first(required(b, "uri", where), required(b, "name", where),
        optional(b, "mimeType", where), optional(b, "title", where), optional(b, "description", where),
        b.getValue("size") == null || b.getValue("size") instanceof Number ? null
          : where + ".size is " + JsonRpc.describe(b.getValue("size")) + ", not a number");
      case "resource" -> resource(b.getValue("resource"), where + ".resource");
      default -> null;
    };
  }

  private static String resource(Object value, String where) {
    if (!(value instanceof JsonObject r)) {
      return where + " is " + JsonRpc.describe(value) + ", not an object";
    }
    String p = first(required(r, "uri", where), optional(r, "mimeType", where));
    if (p != null) {
      return p;
    }
    boolean text = r.getValue("text") instanceof String;
    boolean blob = r.getValue("blob") instanceof String;
    if (!text && !blob) {
      return where + " has neither a string \"text\" nor a string \"blob\"";
    }
    return null;
  }

  private static String required(JsonObject o, String key, String where) {
    Object v = o.getValue(key);
    return v instanceof String ? null : notString(v, where + "." + key);
  }

  private static String notString(Object v, String name) {
    return name + (v == null ? " is missing" : " is " + JsonRpc.describe(v) + ", not a string");
  }

  private static String optional(JsonObject o, String key, String where) {
    return o.getValue(key) == null ? null : required(o, key, where);
  }

  private static String notObject(JsonObject o, String key, String name) {
    Object v = o.getValue(key);
    return v == null || v instanceof JsonObject ? null : name + " is " + JsonRpc.describe(v) + ", not an object";
  }

  private static String first(String... problems) {
    for (String p : problems) {
      if (p != null) {
        return p;
      }
    }
    return null;
  }
}
