package io.agentbus.mcp.jsonrpc;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.regex.Pattern;

/** Builders and small helpers for JSON-RPC 2.0 messages. */
public final class JsonRpc {

  public static final String VERSION = "2.0";

  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;

  private static final Pattern NUMBER = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
  private static final int MAX_NUMBER_CHARS = 40;
  private static final int MAX_SHOWN_CHARS = 60;

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

  /**
   * The key the id would have with its other JSON type: for a string that holds a JSON number
   * ({@code "5"}), the key of that number; for a number, the key of its text. Ids match only
   * with their JSON type; this key finds the request a confused peer meant to answer.
   *
   * @return the key, or {@code null} when there is none (another string, a missing id)
   */
  public static String otherTypeKey(Object id) {
    if (id instanceof String s) {
      if (s.length() > MAX_NUMBER_CHARS || !NUMBER.matcher(s).matches()) {
        return null;
      }
      try {
        return idKey(new BigDecimal(s));
      } catch (NumberFormatException e) {
        return null; // an exponent beyond int: no id of ours
      }
    }
    if (id instanceof Number n) {
      String key = idKey(n);
      return key == null ? null : "s:" + key.substring(2);
    }
    return null;
  }

  /**
   * @return what is wrong with the message's {@code jsonrpc} member, such as
   *     {@code "jsonrpc" is the number 2, not the string "2.0"}; {@code null} when it is
   *     exactly {@code "2.0"}
   */
  public static String versionProblem(JsonObject msg) {
    Object v = msg.getValue("jsonrpc");
    if (VERSION.equals(v)) {
      return null;
    }
    if (v == null) {
      return msg.containsKey("jsonrpc") ? "\"jsonrpc\" is null, not \"2.0\"" : "\"jsonrpc\" is missing";
    }
    return "\"jsonrpc\" is " + describe(v) + ", not the string \"2.0\"";
  }

  /**
   * Describes a JSON value for an error message, with its type and (for scalars) its value,
   * cut short: {@code the string "yes"}, {@code the number 5}, {@code an object}.
   */
  public static String describe(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String s) {
      String shown = s.length() > MAX_SHOWN_CHARS ? s.substring(0, MAX_SHOWN_CHARS) + "..." : s;
      return "the string " + Json.encode(shown);
    }
    if (value instanceof Number n) {
      return "the number " + n;
    }
    if (value instanceof Boolean b) {
      return "the boolean " + b;
    }
    if (value instanceof JsonObject) {
      return "an object";
    }
    if (value instanceof JsonArray) {
      return "an array";
    }
    return "a " + value.getClass().getSimpleName();
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
