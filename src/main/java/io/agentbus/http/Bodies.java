package io.agentbus.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/** Reads and checks request bodies; every problem is an {@link ApiError} 400 naming the field. */
final class Bodies {

  private Bodies() {
  }

  /** @return the body as a JSON object; an empty body is {@code {}} */
  static JsonObject object(RoutingContext ctx) {
    Buffer raw = ctx.body().buffer();
    if (raw == null || raw.length() == 0 || raw.toString().isBlank()) {
      return new JsonObject();
    }
    Object parsed;
    try {
      parsed = raw.toJsonValue();
    } catch (DecodeException e) {
      throw ApiError.badRequest("the body is not valid JSON");
    }
    if (!(parsed instanceof JsonObject obj)) {
      throw ApiError.badRequest("the body must be a JSON object");
    }
    return obj;
  }

  /** @return the string field, or {@code null} when absent */
  static String optionalString(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw ApiError.badRequest("field '" + field + "' must be a string");
    }
    return (String) v;
  }

  /** @return the array-of-strings field, or {@code null} when absent */
  static JsonArray optionalStrings(JsonObject body, String field) {
    Object v = body.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonArray arr) || !arr.stream().allMatch(o -> o instanceof String)) {
      throw ApiError.badRequest("field '" + field + "' must be an array of strings");
    }
    return arr;
  }

  /** @return the user message content: a non-empty string or a non-empty array of blocks */
  static Object content(JsonObject body) {
    Object v = body.getValue("content");
    if (v == null) {
      throw ApiError.badRequest("field 'content' is required");
    }
    if (v instanceof String s) {
      if (s.isBlank()) {
        throw ApiError.badRequest("field 'content' must not be empty");
      }
      return s;
    }
    if (v instanceof JsonArray arr && !arr.isEmpty()) {
      return arr;
    }
    throw ApiError.badRequest("field 'content' must be a non-empty string or an array of content blocks");
  }
}
