package io.agentbus.cli;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;

/**
 * A stdio MCP server (run as a child JVM) that answers {@code initialize} but never answers
 * {@code tools/list} on its first N starts. Arguments: {@code STARTS_FILE N}. Each start
 * appends a line to STARTS_FILE first (so the test sees every retry); from start N+1 on it
 * lists one tool, {@code echo}.
 */
public final class SlowListingServer {

  private SlowListingServer() {
  }

  public static void main(String[] args) throws Exception {
    Path starts = Path.of(args[0]);
    int hangingStarts = Integer.parseInt(args[1]);
    Files.writeString(starts, "start\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    boolean hang = Files.readAllLines(starts, StandardCharsets.UTF_8).size() <= hangingStarts;
    StdioMcpServer server = new StdioMcpServer("slow-listing", "1.0") {
      @Override
      protected void onMessage(JsonObject msg) {
        if (hang && "tools/list".equals(msg.getString("method"))) {
          return; // never answered
        }
        super.onMessage(msg);
      }
    };
    server.tool(new ServerTool(new JsonObject().put("name", "echo").put("description", "Repeats a message back")
      .put("inputSchema", new JsonObject().put("type", "object")),
      (a, c) -> CompletableFuture.completedFuture(ServerTool.text("Echo: " + a.getValue("message")))));
    server.run();
  }
}
