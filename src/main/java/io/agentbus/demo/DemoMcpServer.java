package io.agentbus.demo;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.CompletableFuture;

/**
 * The demo MCP server shipped in the jar ({@code java -jar agentbus.jar demo-server}):
 * weather from a built-in table, a calculator and a clock, over stdio. It lets the
 * offline default show real tool calls with no network.
 */
public final class DemoMcpServer {

  private DemoMcpServer() {
  }

  /** Serves until stdin closes. */
  public static void main(String[] args) throws java.io.IOException {
    new StdioMcpServer("agentbus-demo", "0.1.0")
      .instructions("Demo tools: get_weather for a city, calculate for arithmetic, current_time for a time zone.")
      .tool(new ServerTool(tool("get_weather", "Get the current weather for a city (built-in demo data).",
        props("city", "City name, e.g. Paris"), "city"), (a, c) -> done(weather(a))))
      .tool(new ServerTool(tool("calculate", "Evaluate an arithmetic expression with + - * / % ^ and parentheses.",
        props("expression", "The expression, e.g. (2+3)*4"), "expression"), (a, c) -> done(calculate(a))))
      .tool(new ServerTool(tool("current_time", "Get the current date and time in an IANA time zone (default UTC).",
        props("timezone", "IANA time zone, e.g. Europe/Paris")), (a, c) -> done(time(a))))
      .run();
  }

  private static CompletableFuture<JsonObject> done(JsonObject result) {
    return CompletableFuture.completedFuture(result);
  }

  static JsonObject weather(JsonObject args) {
    Object city = args.getValue("city");
    WeatherTable.Weather w = city instanceof String s ? WeatherTable.lookup(s) : null;
    if (w == null) {
      return ServerTool.error("No weather data for " + city + ". Known cities: " + WeatherTable.knownCities());
    }
    JsonObject structured = new JsonObject().put("city", w.city()).put("condition", w.condition())
      .put("temperature_c", w.celsius()).put("humidity_pct", w.humidity()).put("wind_kmh", w.windKmh());
    return ServerTool.text(w.city() + ": " + w.condition() + ", " + w.celsius() + " °C, humidity " + w.humidity()
      + "%, wind " + w.windKmh() + " km/h").put("structuredContent", structured);
  }

  static JsonObject calculate(JsonObject args) {
    if (!(args.getValue("expression") instanceof String expr)) {
      return ServerTool.error("'expression' must be a string");
    }
    try {
      double v = Calculator.evaluate(expr);
      String text = v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.valueOf(v);
      return ServerTool.text(expr + " = " + text);
    } catch (IllegalArgumentException e) {
      return ServerTool.error("Cannot evaluate '" + expr + "': " + e.getMessage());
    }
  }

  static JsonObject time(JsonObject args) {
    String zone = args.getValue("timezone") instanceof String z && !z.isBlank() ? z : "UTC";
    try {
      ZonedDateTime now = ZonedDateTime.now(ZoneId.of(zone));
      return ServerTool.text("It is " + now.format(DateTimeFormatter.ofPattern("EEEE d MMMM yyyy, HH:mm:ss")) + " in " + zone);
    } catch (DateTimeException e) {
      return ServerTool.error("Unknown time zone '" + zone + "'");
    }
  }

  private static JsonObject props(String name, String description) {
    return new JsonObject().put(name, new JsonObject().put("type", "string").put("description", description));
  }

  private static JsonObject tool(String name, String description, JsonObject properties, String... required) {
    JsonObject schema = new JsonObject().put("type", "object").put("properties", properties)
      .put("additionalProperties", false);
    if (required.length > 0) {
      schema.put("required", new JsonArray(java.util.List.of((Object[]) required)));
    }
    return new JsonObject().put("name", name).put("description", description).put("inputSchema", schema)
      .put("annotations", new JsonObject().put("readOnlyHint", true).put("openWorldHint", false));
  }
}
