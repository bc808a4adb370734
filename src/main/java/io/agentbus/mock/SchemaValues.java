package io.agentbus.mock;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/** Fills tool inputs with plausible values from a JSON schema's required properties. */
final class SchemaValues {

  private SchemaValues() {
  }

  /**
   * @param schema an object schema
   * @param text text to draw string values from, may be null
   * @return an input object with a value for every required property
   */
  static JsonObject inputFor(JsonObject schema, String text) {
    JsonObject input = new JsonObject();
    if (schema == null) {
      return input;
    }
    JsonObject props = schema.getJsonObject("properties", new JsonObject());
    for (Object r : schema.getJsonArray("required", new JsonArray())) {
      String name = String.valueOf(r);
      input.put(name, valueFor(name, props.getJsonObject(name, new JsonObject()), text));
    }
    return input;
  }

  static Object valueFor(String name, JsonObject prop, String text) {
    JsonArray enumValues = prop.getJsonArray("enum");
    if (enumValues != null && !enumValues.isEmpty()) {
      return enumValues.getValue(0);
    }
    if (prop.containsKey("default")) {
      return prop.getValue("default");
    }
    Object type = prop.getValue("type");
    String t = type instanceof JsonArray a && !a.isEmpty() ? String.valueOf(a.getValue(0)) : type == null ? "string" : type.toString();
    return switch (t) {
      case "integer" -> prop.getLong("minimum", 1L);
      case "number" -> prop.getDouble("minimum", 1.0);
      case "boolean" -> true;
      case "array" -> new JsonArray();
      case "object" -> inputFor(prop, text);
      case "null" -> null;
      default -> stringFor(name, text);
    };
  }

  private static final Pattern ARITHMETIC = Pattern.compile("[-+(\\s]*\\d[\\d\\s.+\\-*/%^()]*");

  /** The longest run of digits, operators and parentheses in the text, e.g. "(2+3)*4". */
  static String arithmeticIn(String text) {
    Matcher m = ARITHMETIC.matcher(text);
    String best = null;
    while (m.find()) {
      String candidate = m.group().strip();
      if (best == null || candidate.length() > best.length()) {
        best = candidate;
      }
    }
    return best;
  }

  private static String stringFor(String name, String text) {
    String n = name.toLowerCase(Locale.ROOT);
    if (text != null && !text.isBlank()) {
      if (n.contains("city") || n.contains("location") || n.contains("place") || n.contains("country")) {
        return DemoStrategy.placeIn(text);
      }
      if (n.contains("query") || n.contains("text") || n.contains("message") || n.contains("prompt")) {
        return text;
      }
      if (n.contains("expression") || n.contains("formula")) {
        String expression = arithmeticIn(text);
        if (expression != null) {
          return expression;
        }
      }
    }
    if (n.contains("city") || n.contains("location")) {
      return "Paris";
    }
    if (n.contains("path") || n.contains("file")) {
      return "/tmp/example.txt";
    }
    if (n.contains("url")) {
      return "https://example.com";
    }
    if (n.contains("date")) {
      return "2025-01-01";
    }
    if (n.contains("query") || n.contains("text")) {
      return "example";
    }
    return text != null && !text.isBlank() ? DemoStrategy.lastWord(text) : "example";
  }
}
