package io.agentbus.cli;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A stdio MCP server (run as a child JVM of a {@code serve} node) with one tool, {@code where},
 * whose result names the process that started this server: {@code ran in agentbus pid <pid>
 * (server pid <pid>)}, where the first pid is this process' parent, the {@code serve} JVM that
 * owns the connection. It proves which node ran a tool call. The first argument is a file: while
 * it exists a call takes {@value #SLOW_MS} ms (so a test can kill a node with calls in flight),
 * otherwise {@value #FAST_MS} ms.
 */
public final class ClusterWhereServer {

  static final long SLOW_MS = 5_000;
  static final long FAST_MS = 20;

  private ClusterWhereServer() {
  }

  public static void main(String[] args) throws Exception {
    Path slow = Path.of(args[0]);
    long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    long self = ProcessHandle.current().pid();
    new StdioMcpServer("cluster-where", "1.0")
      .tool(new ServerTool(new JsonObject().put("name", "where")
        .put("description", "Tells which agentbus process ran this call.")
        .put("inputSchema", new JsonObject().put("type", "object").put("properties", new JsonObject())),
        (a, c) -> {
          long delay = Files.exists(slow) ? SLOW_MS : FAST_MS;
          return CompletableFuture.supplyAsync(() -> ServerTool.text("ran in agentbus pid " + parent + " (server pid " + self + ")"),
            CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
        }))
      .run();
  }
}
