package io.agentbus.testing;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;

/**
 * A stdio MCP server (run as a child JVM) whose tools carry annotations and that records every
 * call it receives, for approval tests: {@code delete_note} ({@code destructiveHint: true}),
 * {@code read_note} ({@code readOnlyHint: true}), {@code touch_note} (no annotations: counts as
 * destructive by the MCP defaults) and {@code calls} (read-only: the names and arguments of
 * every call received so far, {@code calls} itself excepted, as structured content).
 */
public final class NotesToolServer {

  private static final JsonArray received = new JsonArray();

  private NotesToolServer() {
  }

  public static void main(String[] args) throws Exception {
    StdioMcpServer server = new StdioMcpServer("notes", "1.0");
    server.tool(recording(tool("delete_note", new JsonObject().put("destructiveHint", true).put("readOnlyHint", false))));
    server.tool(recording(tool("read_note", new JsonObject().put("readOnlyHint", true))));
    server.tool(recording(tool("touch_note", null)));
    server.tool(new ServerTool(tool("calls", new JsonObject().put("readOnlyHint", true)), (a, c) -> {
      JsonArray copy;
      synchronized (received) {
        copy = received.copy();
      }
      return CompletableFuture.completedFuture(ServerTool.text(copy.encode())
        .put("structuredContent", new JsonObject().put("calls", copy)));
    }));
    server.run();
  }

  private static ServerTool recording(JsonObject definition) {
    String name = definition.getString("name");
    return new ServerTool(definition, (arguments, call) -> {
      synchronized (received) {
        received.add(new JsonObject().put("name", name).put("arguments", arguments));
      }
      return CompletableFuture.completedFuture(ServerTool.text(name + " done: " + arguments.getString("note", "")));
    });
  }

  private static JsonObject tool(String name, JsonObject annotations) {
    JsonObject def = new JsonObject().put("name", name).put("description", "notes " + name)
      .put("inputSchema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("note", new JsonObject().put("type", "string"))));
    return annotations == null ? def : def.put("annotations", annotations);
  }
}
