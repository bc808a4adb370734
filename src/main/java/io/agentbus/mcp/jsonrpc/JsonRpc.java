package io.agentbus.mcp.jsonrpc;

import io.vertx.core.json.JsonObject;

/** Builders and small helpers for JSON-RPC 2.0 messages. */
public final class JsonRpc {

  public static final String VERSION = "2.0";

  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;

  private JsonRpc() {
  }

  /** A request; {@code params} may be {@code null}. */
  public static JsonObject request(Object id, String method, JsonObject params) {
    JsonObject msg = new JsonObject().put("jsonrpc", VERSION).put("id", id).put("method", method);
    if (params != null) {
      msg.put("params", params);
    }
    return msg;
  }

  /** A notification (no id); {@code params} may be {@code null}. */
  public static JsonObject notification(String method, JsonObject params) {
    JsonObject msg = new JsonObject().put("jsonrpc", VERSION).put("method", method);
    if (params != null) {
      msg.put("params", params);
    }
    return msg;
  }

  /** A successful response to the request with {@code id}. */
  public static JsonObject result(Object id, JsonObject result) {
    return new JsonObject().put("jsonrpc", VERSION).put("id", id).put("result", result);
  }

  /** An error response to the request with {@code id}. */
  public static JsonObject error(Object id, int code, String message) {
    return new JsonObject().put("jsonrpc", VERSION).put("id", id)
      .put("error", new JsonObject().put("code", code).put("message", message));
  }

  /**
   * The key under which a request id is correlated. Integral numbers of any JSON type map
   * to the same key, so {@code 7}, {@code 7L} and {@code 7.0} match; strings stay strings.
   * Returns {@code null} for a missing or non-scalar id.
   */
  public static String idKey(Object id) {
    if (id instanceof String s) {
      return "s:" + s;
    }
    if (id instanceof Number n) {
      double d = n.doubleValue();
      if (d == Math.rint(d) && !Double.isInfinite(d)) {
        return "n:" + n.longValue();
      }
      return "n:" + d;
    }
    return null;
  }

  /** @return whether the message is a request or notification (has a string method) */
  public static boolean hasMethod(JsonObject msg) {
    return msg.getValue("method") instanceof String;
  }

  /** @return whether the message is a response (has result or error) */
  public static boolean isResponse(JsonObject msg) {
    return msg.containsKey("result") || msg.containsKey("error");
  }
}
