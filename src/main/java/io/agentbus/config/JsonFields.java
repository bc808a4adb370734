package io.agentbus.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Typed, validating reads of configuration fields; errors name the owner and the field. */
final class JsonFields {

  private final JsonObject json;
  private final String owner;

  JsonFields(JsonObject json, String owner) {
    this.json = json;
    this.owner = owner;
  }

  private ConfigException wrongType(String field, String expected) {
    return new ConfigException(owner + ": field '" + field + "' must be " + expected);
  }

  String string(String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s)) {
      throw wrongType(field, "a string");
    }
    return s;
  }

  Boolean bool(String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Boolean b)) {
      throw wrongType(field, "true or false");
    }
    return b;
  }

  Long positiveLong(String field) {
    return integer(field, 1, "a positive integer");
  }

  Long nonNegativeLong(String field) {
    return integer(field, 0, "an integer >= 0");
  }

  /** Reads {@code -1} (unbounded) or an integer {@code >= 0}. */
  Long nonNegativeOrUnbounded(String field) {
    return integer(field, -1, "-1 (unbounded) or an integer >= 0");
  }

  private Long integer(String field, long min, String expected) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue()) || n.longValue() < min) {
      throw wrongType(field, expected);
    }
    return n.longValue();
  }

  List<String> stringList(String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonArray arr)) {
      throw wrongType(field, "an array of strings");
    }
    List<String> out = new ArrayList<>(arr.size());
    for (Object item : arr) {
      if (!(item instanceof String s)) {
        throw wrongType(field, "an array of strings");
      }
      out.add(s);
    }
    return out;
  }

  Map<String, String> stringMap(String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonObject obj)) {
      throw wrongType(field, "an object of string values");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : obj) {
      if (!(e.getValue() instanceof String s)) {
        throw new ConfigException(owner + ": field '" + field + "." + e.getKey() + "' must be a string");
      }
      out.put(e.getKey(), s);
    }
    return out;
  }

  JsonObject object(String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonObject obj)) {
      throw wrongType(field, "an object");
    }
    return obj;
  }
}
