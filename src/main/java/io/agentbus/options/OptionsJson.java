package io.agentbus.options;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;

/**
 * Strict reads for the {@code JsonObject} constructors of the options classes: an absent
 * field gives the fallback, a present one must have the right type and lie in the range its
 * setter accepts. A wrong value throws {@link IllegalArgumentException} naming the field,
 * the allowed range and what was found, e.g. {@code field 'maxTokens' must be an integer
 * from 1 to 2147483647 (was 3000000000)}: never a silent default, never a wrapped int.
 */
public final class OptionsJson {

  private OptionsJson() {
  }

  /**
   * @return the field as an int in {@code [min, max]}, or {@code fallback} when absent
   * @throws IllegalArgumentException when it is not an integer in that range
   */
  public static int intField(JsonObject json, String field, int min, int max, int fallback) {
    Long v = integer(json, field, min, max);
    return v == null ? fallback : v.intValue();
  }

  /**
   * @return the field as a long {@code >= min}, or {@code fallback} when absent
   * @throws IllegalArgumentException when it is not an integer in that range
   */
  public static long longField(JsonObject json, String field, long min, long fallback) {
    Long v = integer(json, field, min, Long.MAX_VALUE);
    return v == null ? fallback : v;
  }

  /**
   * @return the field as an integer in {@code [min, max]}, or {@code null} when absent
   * @throws IllegalArgumentException when it is not an integer in that range
   */
  public static Long integer(JsonObject json, String field, long min, long max) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    Long n = exactLong(v);
    if (n == null || n < min || n > max) {
      throw new IllegalArgumentException("field '" + field + "' must be " + range(min, max) + " (was " + shown(v) + ")");
    }
    return n;
  }

  /** @return the field, or {@code fallback} when absent; not a boolean throws */
  public static boolean bool(JsonObject json, String field, boolean fallback) {
    Object v = json.getValue(field);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof Boolean b)) {
      throw new IllegalArgumentException("field '" + field + "' must be true or false (was " + shown(v) + ")");
    }
    return b;
  }

  /** @return the field, or {@code fallback} when absent; not a string throws */
  public static String string(JsonObject json, String field, String fallback) {
    Object v = json.getValue(field);
    if (v == null) {
      return fallback;
    }
    if (!(v instanceof String s)) {
      throw new IllegalArgumentException("field '" + field + "' must be a string (was " + shown(v) + ")");
    }
    return s;
  }

  /** @return the field, or {@code null} when absent; not an object throws */
  public static JsonObject object(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (v == null) {
      return null;
    }
    if (!(v instanceof JsonObject o)) {
      throw new IllegalArgumentException("field '" + field + "' must be an object (was " + shown(v) + ")");
    }
    return o;
  }

  /**
   * @return {@code v} as a long when it is a JSON number with an integer value ({@code 5},
   *     {@code 5.0}, {@code 5e3}) that fits in a long, else {@code null} (a fraction, a
   *     string, a number beyond the long range)
   */
  public static Long exactLong(Object v) {
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    if (!(v instanceof Number n)) {
      return null;
    }
    try {
      return new BigDecimal(n.toString()).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /** @return how an allowed range reads in an error */
  public static String range(long min, long max) {
    return max == Long.MAX_VALUE ? "an integer >= " + min : "an integer from " + min + " to " + max;
  }

  /**
   * @return what was found, for an error: numbers and booleans as they are, other values by
   *     their type only (a string in the wrong field may be a secret)
   */
  public static String shown(Object v) {
    if (v instanceof Number || v instanceof Boolean) {
      return String.valueOf(v);
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof JsonObject) {
      return "an object";
    }
    if (v instanceof JsonArray) {
      return "an array";
    }
    return v.getClass().getSimpleName();
  }
}
