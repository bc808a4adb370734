package io.agentbus.options;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Typed, validating reads of configuration fields; errors name the owner, the field (with
 * its path, e.g. {@code loop.maxIterations}) and the allowed values. Every field asked for is
 * remembered, so that {@link #unknownFields()} can name the keys nobody read (typos).
 */
public final class JsonFields {

  private final JsonObject json;
  private final String owner;
  private final String path;
  private final Set<String> known = new LinkedHashSet<>();
  private final List<JsonFields> nested = new ArrayList<>();

  public JsonFields(JsonObject json, String owner) {
    this(json, owner, "");
  }

  private JsonFields(JsonObject json, String owner, String path) {
    this.json = json;
    this.owner = owner;
    this.path = path;
  }

  /** @return the field's name as errors show it */
  public String where(String field) {
    return path + field;
  }

  /** @return an error naming the owner and the field */
  public ConfigException error(String field, String problem) {
    return new ConfigException(owner + ": field '" + where(field) + "' " + problem);
  }

  private Object value(String field) {
    known.add(field);
    return json.getValue(field);
  }

  private ConfigException wrongType(String field, String expected, Object found) {
    return error(field, "must be " + expected + " (was " + OptionsJson.shown(found) + ")");
  }

  /** @return whether the field is present */
  public boolean has(String field) {
    known.add(field);
    return json.getValue(field) != null;
  }

  /** @return the raw value (the caller checks it), or {@code null} */
  public Object raw(String field) {
    return value(field);
  }

  public String string(String field) {
    Object v = value(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof String s)) {
      throw wrongType(field, "a string", v);
    }
    return s;
  }

  public Boolean bool(String field) {
    Object v = value(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof Boolean b)) {
      throw wrongType(field, "true or false", v);
    }
    return b;
  }

  /** Reads an integer in {@code [min, Integer.MAX_VALUE]}: the range of an int setter. */
  public Integer intField(String field, int min) {
    Long v = integer(field, min, Integer.MAX_VALUE, OptionsJson.range(min, Integer.MAX_VALUE));
    return v == null ? null : v.intValue();
  }

  /** Reads an integer {@code >= min}: the range of a long setter. */
  public Long longField(String field, long min) {
    return integer(field, min, Long.MAX_VALUE, OptionsJson.range(min, Long.MAX_VALUE));
  }

  /** Reads an integer in {@code [min, max]}; {@code expected} says so in the error. */
  public Long integer(String field, long min, long max, String expected) {
    Object v = value(field);
    if (v == null) {
      return null;
    }
    Long n = OptionsJson.exactLong(v);
    if (n == null || n < min || n > max) {
      throw wrongType(field, expected, v);
    }
    return n;
  }

  public List<String> stringList(String field) {
    Object v = value(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonArray arr)) {
      throw wrongType(field, "an array of strings", v);
    }
    List<String> out = new ArrayList<>(arr.size());
    for (Object item : arr) {
      if (!(item instanceof String s)) {
        throw error(field, "must be an array of strings");
      }
      out.add(s);
    }
    return out;
  }

  public Map<String, String> stringMap(String field) {
    return stringMap(field, false);
  }

  /**
   * Reads an object of string values.
   *
   * @param secretKeys whether the keys are secrets (bearer tokens): errors then never show one
   */
  public Map<String, String> stringMap(String field, boolean secretKeys) {
    Object v = value(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonObject obj)) {
      throw wrongType(field, "an object of string values", v);
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : obj) {
      if (!(e.getValue() instanceof String s)) {
        throw secretKeys ? error(field, "must map every key to a string")
          : error(field + "." + e.getKey(), "must be a string");
      }
      out.put(e.getKey(), s);
    }
    return out;
  }

  /** @return the nested object's fields (empty when absent); its unknown keys count as this one's */
  public JsonFields object(String field) {
    Object v = value(field);
    if (v != null && !(v instanceof JsonObject)) {
      throw wrongType(field, "an object", v);
    }
    JsonFields child = new JsonFields(v == null ? new JsonObject() : (JsonObject) v, owner, where(field) + ".");
    nested.add(child);
    return child;
  }

  /**
   * @return one line per key present in the JSON but never asked for, here and in the nested
   *     objects, with the nearest known name when one is close (a typo)
   */
  public List<String> unknownFields() {
    List<String> out = new ArrayList<>();
    for (String key : json.fieldNames()) {
      if (!known.contains(key)) {
        String near = nearest(key);
        out.add("unknown field '" + where(key) + "' is ignored" + (near == null ? "" : " (did you mean '" + where(near) + "'?)"));
      }
    }
    nested.forEach(n -> out.addAll(n.unknownFields()));
    return out;
  }

  private String nearest(String key) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = k.equalsIgnoreCase(key) ? 0 : distance(k.toLowerCase(), key.toLowerCase());
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return bestDistance <= Math.min(3, Math.max(2, key.length() / 3)) ? best : null;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
