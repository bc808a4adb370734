package io.agentbus.mcp;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;

/**
 * The {@code requestedSchema} of a form-mode {@code elicitation/create}, held to what the MCP
 * spec allows (2025-06-18 / 2025-11-25): an object schema whose properties are flat primitives
 * ({@code string} with its formats and enums, {@code number}, {@code integer}, {@code boolean},
 * or an {@code array} of enum values for multi-select), at most {@link #MAX_PROPERTIES} of them.
 * Anything else (nested objects, {@code $ref}, a property of another type) is refused, so a
 * hostile schema cannot make validating an answer expensive. Immutable.
 */
public final class ElicitationForm {

  /** The most properties a form may ask for. */
  public static final int MAX_PROPERTIES = 64;
  private static final Set<String> TYPES = Set.of("string", "number", "integer", "boolean", "array");

  private final JsonObject schema;

  private ElicitationForm(JsonObject schema) {
    this.schema = schema;
  }

  /**
   * @param requestedSchema the schema as the server sent it (copied)
   * @throws IllegalArgumentException naming what the spec does not allow
   */
  public static ElicitationForm parse(Object requestedSchema) {
    if (!(requestedSchema instanceof JsonObject s)) {
      throw new IllegalArgumentException("requestedSchema must be an object schema");
    }
    if (!"object".equals(s.getValue("type"))) {
      throw new IllegalArgumentException("requestedSchema must have \"type\": \"object\"");
    }
    if (s.containsKey("$ref") || s.containsKey("$defs") || s.containsKey("definitions")) {
      throw new IllegalArgumentException("requestedSchema may not use $ref or $defs (flat primitive properties only)");
    }
    Object props = s.getValue("properties");
    if (props != null && !(props instanceof JsonObject)) {
      throw new IllegalArgumentException("requestedSchema.properties must be an object");
    }
    JsonObject properties = props == null ? new JsonObject() : (JsonObject) props;
    if (properties.size() > MAX_PROPERTIES) {
      throw new IllegalArgumentException("requestedSchema has " + properties.size() + " properties; at most "
        + MAX_PROPERTIES + " are accepted");
    }
    for (Map.Entry<String, Object> e : properties) {
      if (!(e.getValue() instanceof JsonObject p) || !(p.getValue("type") instanceof String type) || !TYPES.contains(type)) {
        throw new IllegalArgumentException("requestedSchema property '" + e.getKey()
          + "' must be a primitive schema (string, number, integer, boolean, or an array of enum values)");
      }
      if (p.containsKey("$ref") || p.containsKey("properties")) {
        throw new IllegalArgumentException("requestedSchema property '" + e.getKey() + "' may not nest schemas");
      }
      if ("array".equals(type) && !(p.getValue("items") instanceof JsonObject)) {
        throw new IllegalArgumentException("requestedSchema property '" + e.getKey() + "' (array) needs 'items' with its enum values");
      }
    }
    Object required = s.getValue("required");
    if (required != null && !(required instanceof JsonArray)) {
      throw new IllegalArgumentException("requestedSchema.required must be an array");
    }
    return new ElicitationForm(s.copy());
  }

  /** @return the schema (a private copy: do not modify) */
  public JsonObject schema() {
    return schema;
  }

  /**
   * Applies the schema's defaults (SEP-1034): every property the answer leaves out that has a
   * {@code default} gets it.
   *
   * @param content the user's answer ({@code null}: an empty one)
   * @return a new object: the answer with the defaults filled in
   */
  public JsonObject withDefaults(JsonObject content) {
    JsonObject out = content == null ? new JsonObject() : content.copy();
    JsonObject properties = schema.getJsonObject("properties", new JsonObject());
    for (Map.Entry<String, Object> e : properties) {
      JsonObject p = (JsonObject) e.getValue();
      if (!out.containsKey(e.getKey()) && p.containsKey("default") && p.getValue("default") != null) {
        Object d = p.getValue("default");
        out.put(e.getKey(), d instanceof JsonArray a ? a.copy() : d);
      }
    }
    return out;
  }
}
