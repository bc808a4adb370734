package io.agentbus.mcpserver;

import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionStage;

/**
 * One tool of a {@link StdioMcpServer}: its MCP definition and its implementation.
 *
 * @param definition the MCP {@code Tool} object ({@code name}, {@code description}, {@code inputSchema}, ...)
 * @param handler computes the {@code CallToolResult}
 */
public record ServerTool(JsonObject definition, Handler handler) {

  /** Computes a {@code CallToolResult}, possibly later (latency, progress). */
  @FunctionalInterface
  public interface Handler {
    /**
     * @param arguments the call's arguments (never null)
     * @param call the call's context: id, progress, cancellation
     */
    CompletionStage<JsonObject> call(JsonObject arguments, ToolCall call);
  }

  /** @return the tool's name */
  public String name() {
    return definition.getString("name");
  }

  /** A {@code CallToolResult} with one text block. */
  public static JsonObject text(String text) {
    return new JsonObject().put("content", new io.vertx.core.json.JsonArray()
      .add(new JsonObject().put("type", "text").put("text", text)));
  }

  /** A {@code CallToolResult} with one text block and {@code isError: true}. */
  public static JsonObject error(String text) {
    return text(text).put("isError", true);
  }
}
