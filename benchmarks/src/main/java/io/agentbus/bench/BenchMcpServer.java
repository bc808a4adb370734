package io.agentbus.bench;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's MCP server, run as a child process over stdio: {@code sleep {ms}} answers
 * after {@code ms} milliseconds (a scheduled task, no thread held), {@code noop} at once.
 */
public final class BenchMcpServer {

  private BenchMcpServer() {
  }

  public static void main(String[] args) throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    JsonObject msSchema = new JsonObject().put("type", "object").put("properties",
      new JsonObject().put("ms", new JsonObject().put("type", "integer").put("minimum", 0))).put("required", new io.vertx.core.json.JsonArray().add("ms"));
    new StdioMcpServer("agentbus-bench", "1.0")
      .tool(new ServerTool(new JsonObject().put("name", "sleep").put("description", "Answers after ms milliseconds")
        .put("inputSchema", msSchema), (a, call) -> {
          CompletableFuture<JsonObject> f = new CompletableFuture<>();
          timer.schedule(() -> f.complete(ServerTool.text("slept " + a.getLong("ms"))), a.getLong("ms", 0L), TimeUnit.MILLISECONDS);
          return f;
        }))
      .tool(new ServerTool(new JsonObject().put("name", "noop").put("description", "Answers at once")
        .put("inputSchema", new JsonObject().put("type", "object")),
        (a, call) -> CompletableFuture.completedFuture(ServerTool.text("ok"))))
      .run();
    timer.shutdownNow();
  }
}
