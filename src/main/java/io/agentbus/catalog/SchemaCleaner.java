package io.agentbus.catalog;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns an MCP {@code inputSchema} into one every provider accepts, so that one odd server
 * cannot break every model request. The original stays in the catalog for validation.
 *
 * <p>Rules, all at the root only (nested schemas go through unchanged):
 * <ul>
 *   <li>{@code $schema}, {@code $id}, {@code not}, {@code if}/{@code then}/{@code else},
 *   {@code enum} and {@code const} are dropped;</li>
 *   <li>{@code allOf} branches are merged into the root (properties, required);</li>
 *   <li>{@code anyOf}/{@code oneOf} branches are merged into the root: properties of every
 *   branch, required only what every branch requires;</li>
 *   <li>{@code type} becomes {@code "object"} and {@code properties} defaults to {@code {}};</li>
 *   <li>a {@code required} that is not an array of strings is dropped.</li>
 * </ul>
 */
public final class SchemaCleaner {

  private static final List<String> DROPPED = List.of("$schema", "$id", "not", "if", "then", "else", "enum", "const");

  private SchemaCleaner() {
  }

  /** @return a cleaned deep copy; {@code null} or a non-object gives {@code {type:object, properties:{}}} */
  public static JsonObject clean(Object schema) {
    JsonObject out = schema instanceof JsonObject s ? s.copy() : new JsonObject();
    DROPPED.forEach(out::remove);
    Object allOf = out.remove("allOf");
    if (allOf instanceof JsonArray branches) {
      for (Object b : branches) {
        if (b instanceof JsonObject branch) {
          mergeProperties(out, branch);
          Set<String> required = requiredOf(out);
          required.addAll(requiredOf(branch));
          putRequired(out, required);
        }
      }
    }
    for (String key : List.of("anyOf", "oneOf")) {
      Object alternatives = out.remove(key);
      if (alternatives instanceof JsonArray branches && !branches.isEmpty()) {
        Set<String> common = null;
        for (Object b : branches) {
          JsonObject branch = b instanceof JsonObject o ? o : new JsonObject();
          mergeProperties(out, branch);
          Set<String> req = requiredOf(branch);
          if (common == null) {
            common = req;
          } else {
            common.retainAll(req);
          }
        }
        Set<String> required = requiredOf(out);
        required.addAll(common);
        putRequired(out, required);
      }
    }
    out.put("type", "object");
    if (!(out.getValue("properties") instanceof JsonObject)) {
      out.put("properties", new JsonObject());
    }
    if (out.containsKey("required") && !(out.getValue("required") instanceof JsonArray)) {
      out.remove("required");
    }
    putRequired(out, requiredOf(out));
    return out;
  }

  private static void mergeProperties(JsonObject into, JsonObject branch) {
    if (branch.getValue("properties") instanceof JsonObject props) {
      JsonObject target = into.getValue("properties") instanceof JsonObject p ? p : new JsonObject();
      props.forEach(e -> {
        if (!target.containsKey(e.getKey())) {
          target.put(e.getKey(), e.getValue());
        }
      });
      into.put("properties", target);
    }
  }

  private static Set<String> requiredOf(JsonObject schema) {
    Set<String> out = new LinkedHashSet<>();
    if (schema.getValue("required") instanceof JsonArray req) {
      for (Object r : req) {
        if (r instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }

  private static void putRequired(JsonObject schema, Set<String> required) {
    if (required.isEmpty()) {
      schema.remove("required");
    } else {
      schema.put("required", new JsonArray(new ArrayList<>(required)));
    }
  }
}
