package io.agentbus.testing;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A stdio MCP server (run as a child JVM) that reports whose it is: {@code whoami} answers
 * {@code {"tenant": $WHO_TENANT, "secret": $WHO_SECRET, "pid": its pid}} as JSON text, after
 * {@code delayMs} (an argument, default 0), so calls can be held open. Scoped-connection tests
 * set {@code WHO_TENANT: ${tenant.id}} and {@code WHO_SECRET: ${tenant.secret.TOKEN}}. With
 * {@code WHO_SECRET} {@code exit} it exits with code 3 at once (a tenant whose server cannot start);
 * its tool {@code die} exits with code 7 (a crash mid-call).
 */
public final class WhoAmIServer {

  private WhoAmIServer() {
  }

  public static void main(String[] args) throws Exception {
    if ("exit".equals(System.getenv("WHO_SECRET"))) {
      System.err.println("bad credentials");
      System.exit(3);
    }
    StdioMcpServer server = new StdioMcpServer("whoami", "1.0");
    JsonObject schema = new JsonObject().put("type", "object")
      .put("properties", new JsonObject().put("delayMs", new JsonObject().put("type", "integer")));
    server.tool(new ServerTool(new JsonObject().put("name", "whoami").put("description", "who runs this server")
      .put("inputSchema", schema), (a, c) -> {
        JsonObject me = new JsonObject().put("tenant", System.getenv("WHO_TENANT")).put("secret", System.getenv("WHO_SECRET"))
          .put("pid", ProcessHandle.current().pid());
        long delay = a.getLong("delayMs", 0L);
        return CompletableFuture.supplyAsync(() -> ServerTool.text(me.encode()),
          CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
      }));
    server.tool(new ServerTool(new JsonObject().put("name", "die").put("inputSchema", new JsonObject().put("type", "object")),
      (a, c) -> {
        System.exit(7);
        return null;
      }));
    server.run();
  }
}
