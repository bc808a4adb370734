package io.agentbus.catalog;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The {@code pattern} keywords of a schema, checked by Agentbus itself under a time budget
 * instead of by the JSON Schema validator (which runs {@code java.util.regex} without one).
 * {@link #strip(JsonObject)} removes every {@code pattern} and {@code patternProperties} from
 * the copy the validator compiles; {@link #of(JsonObject)} keeps the patterns that apply
 * unconditionally (through {@code properties}, {@code additionalProperties}, {@code items},
 * {@code prefixItems}, {@code allOf} and local {@code $ref}s). Patterns inside
 * {@code anyOf}/{@code oneOf}/{@code not}/conditionals and {@code patternProperties} are not
 * checked here: the server still validates its own arguments. Immutable.
 */
final class PatternRules {

  private static final int MAX_DEPTH = 64;
  private static final Set<String> SCHEMA_MAPS = Set.of("properties", "patternProperties", "$defs", "definitions",
    "dependentSchemas");
  private static final Set<String> SCHEMA_VALUES = Set.of("additionalProperties", "items", "contains", "not", "if",
    "then", "else", "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems");
  private static final Set<String> SCHEMA_ARRAYS = Set.of("allOf", "anyOf", "oneOf", "prefixItems", "items");

  /** One violation found while checking. */
  record Violation(String location, String message) {
  }

  private final List<Pattern> patterns = new ArrayList<>();
  private final Map<String, PatternRules> properties = new LinkedHashMap<>();
  private final List<PatternRules> prefixItems = new ArrayList<>();
  private PatternRules items;
  private PatternRules additional;

  private PatternRules() {
  }

  /** Removes, in place, every {@code pattern} and {@code patternProperties} keyword of a schema. */
  static void strip(Object schema) {
    strip(schema, 0);
  }

  private static void strip(Object node, int depth) {
    if (!(node instanceof JsonObject schema) || depth > MAX_DEPTH) {
      return;
    }
    if (schema.getValue("pattern") instanceof String) {
      schema.remove("pattern");
    }
    if (schema.getValue("patternProperties") instanceof JsonObject) {
      schema.remove("patternProperties");
      // what counts as "additional" depended on the removed patterns
      schema.remove("additionalProperties");
      schema.remove("unevaluatedProperties");
    }
    for (Map.Entry<String, Object> e : schema) {
      String key = e.getKey();
      Object value = e.getValue();
      if (SCHEMA_MAPS.contains(key) && value instanceof JsonObject map) {
        map.forEach(sub -> strip(sub.getValue(), depth + 1));
      } else if (SCHEMA_ARRAYS.contains(key) && value instanceof JsonArray list) {
        list.forEach(sub -> strip(sub, depth + 1));
      } else if (SCHEMA_VALUES.contains(key)) {
        strip(value, depth + 1);
      }
    }
  }

  /**
   * @param schema the schema as the server sent it
   * @return the patterns that apply unconditionally, compiled
   */
  static PatternRules of(JsonObject schema) {
    PatternRules rules = new PatternRules();
    rules.add(schema, schema, 0);
    return rules;
  }

  private void add(Object node, JsonObject root, int depth) {
    if (!(node instanceof JsonObject schema) || depth > MAX_DEPTH) {
      return;
    }
    if (schema.getValue("pattern") instanceof String p) {
      try {
        patterns.add(Pattern.compile(p));
      } catch (PatternSyntaxException e) {
        // not a pattern Java understands: left to the server
      }
    }
    if (schema.getValue("properties") instanceof JsonObject props) {
      for (Map.Entry<String, Object> e : props) {
        properties.computeIfAbsent(e.getKey(), k -> new PatternRules()).add(e.getValue(), root, depth + 1);
      }
    }
    if (schema.getValue("additionalProperties") instanceof JsonObject sub && !(schema.getValue("patternProperties") instanceof JsonObject)) {
      additional = additional == null ? new PatternRules() : additional;
      additional.add(sub, root, depth + 1);
    }
    Object itemsValue = schema.getValue("items");
    if (itemsValue instanceof JsonObject sub) {
      items = items == null ? new PatternRules() : items;
      items.add(sub, root, depth + 1);
    }
    JsonArray tuple = schema.getValue("prefixItems") instanceof JsonArray a ? a : itemsValue instanceof JsonArray a2 ? a2 : null;
    if (tuple != null) {
      for (int i = 0; i < tuple.size(); i++) {
        while (prefixItems.size() <= i) {
          prefixItems.add(new PatternRules());
        }
        prefixItems.get(i).add(tuple.getValue(i), root, depth + 1);
      }
    }
    if (schema.getValue("allOf") instanceof JsonArray all) {
      all.forEach(sub -> add(sub, root, depth + 1));
    }
    if (schema.getValue("$ref") instanceof String ref && ref.startsWith("#")) {
      add(resolve(root, ref), root, depth + 1);
    }
  }

  private static Object resolve(JsonObject root, String ref) {
    Object at = root;
    String pointer = ref.substring(1);
    if (pointer.isEmpty()) {
      return root;
    }
    for (String token : pointer.substring(1).split("/", -1)) {
      String key = token.replace("~1", "/").replace("~0", "~");
      if (at instanceof JsonObject o) {
        at = o.getValue(key);
      } else {
        return null;
      }
    }
    return at;
  }

  /** @return whether there is no pattern to check */
  boolean isEmpty() {
    return patterns.isEmpty() && properties.values().stream().allMatch(PatternRules::isEmpty)
      && prefixItems.stream().allMatch(PatternRules::isEmpty)
      && (items == null || items.isEmpty()) && (additional == null || additional.isEmpty());
  }

  /**
   * Checks an instance.
   *
   * @throws BoundedMatch.BudgetExceeded if a match did not finish before the deadline
   */
  void check(Object instance, String location, long deadlineNanos, List<Violation> out) {
    if (instance instanceof String s) {
      for (Pattern p : patterns) {
        if (!BoundedMatch.find(p, s, deadlineNanos)) {
          out.add(new Violation(location, "does not match the pattern " + p.pattern()));
        }
      }
    } else if (instance instanceof JsonObject o) {
      for (Map.Entry<String, Object> e : o) {
        PatternRules sub = properties.get(e.getKey());
        if (sub == null) {
          sub = additional;
        }
        if (sub != null) {
          sub.check(e.getValue(), location + "/" + e.getKey(), deadlineNanos, out);
        }
      }
    } else if (instance instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        PatternRules sub = i < prefixItems.size() ? prefixItems.get(i) : items;
        if (sub != null) {
          sub.check(a.getValue(i), location + "/" + i, deadlineNanos, out);
        }
      }
    }
  }
}
