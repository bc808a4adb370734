package io.agentbus.testing;

import io.agentbus.mcpserver.ServerTool;
import io.agentbus.mcpserver.StdioMcpServer;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletableFuture;

/**
 * A scripted stdio MCP server (run as a child JVM) for what real servers rarely do.
 * The first argument picks the script:
 * <ul>
 *   <li>{@code garbage}: before answering initialize it writes a non-JSON line, a JSON
 *   array, a response with an unknown id and an oversized line (size = second arg);</li>
 *   <li>{@code exit-during-init}: prints "boom" to stderr and exits 3 on initialize;</li>
 *   <li>{@code bad-version}: answers initialize with protocol version 1999-01-01;</li>
 *   <li>{@code silent-init}: never answers initialize;</li>
 *   <li>{@code paged}: serves 5 tools in pages of 2;</li>
 *   <li>{@code ask-client}: after initialized, sends requests {@code roots/list} (id 0) and
 *   {@code ping} (id "p1") and reports each answer as a log notification.</li>
 * </ul>
 * Every script serves {@code echo}, {@code hang} (never answers; reports
 * {@code notifications/cancelled} as a log notification "cancelled &lt;id&gt;") and
 * {@code die} (exits with code 7).
 */
public final class FakeStdioServer {

  private FakeStdioServer() {
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "plain";
    StdioMcpServer server = new StdioMcpServer("fake-" + mode, "1.0") {
      @Override
      protected void onMessage(JsonObject msg) {
        String method = msg.getString("method");
        if ("initialize".equals(method)) {
          switch (mode) {
            case "garbage" -> {
              writeRaw("this is not json");
              writeRaw("[1,2,3]");
              writeRaw("{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{}}");
              writeRaw("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\""
                + "x".repeat(Integer.parseInt(args[1])) + "\"}}");
            }
            case "exit-during-init" -> {
              System.err.println("boom");
              System.exit(3);
            }
            case "bad-version" -> {
              respond(msg.getValue("id"), new JsonObject().put("protocolVersion", "1999-01-01")
                .put("capabilities", new JsonObject()).put("serverInfo", new JsonObject().put("name", "old").put("version", "0")));
              return;
            }
            case "silent-init" -> {
              return;
            }
            default -> {
            }
          }
        }
        if ("notifications/initialized".equals(method) && "ask-client".equals(mode)) {
          send(new JsonObject().put("jsonrpc", "2.0").put("id", 0).put("method", "roots/list"));
          send(new JsonObject().put("jsonrpc", "2.0").put("id", "p1").put("method", "ping"));
        }
        if (method == null && msg.containsKey("id")) {
          notify("notifications/message", new JsonObject().put("level", "info")
            .put("data", "answer to " + msg.getValue("id") + ": " + (msg.containsKey("error")
              ? "error " + msg.getJsonObject("error").getInteger("code") : "result " + msg.getValue("result"))));
          return;
        }
        if ("notifications/cancelled".equals(method)) {
          notify("notifications/message", new JsonObject().put("level", "info")
            .put("data", "cancelled " + msg.getJsonObject("params").getValue("requestId")));
        }
        super.onMessage(msg);
      }
    };
    server.tool(new ServerTool(tool("echo"), (a, c) ->
      CompletableFuture.completedFuture(ServerTool.text("Echo: " + a.getValue("message")))));
    server.tool(new ServerTool(tool("hang"), (a, c) -> new CompletableFuture<>()));
    server.tool(new ServerTool(tool("die"), (a, c) -> {
      System.exit(7);
      return null;
    }));
    if ("paged".equals(mode)) {
      server.tool(new ServerTool(tool("extra-1"), (a, c) -> CompletableFuture.completedFuture(ServerTool.text("1"))));
      server.tool(new ServerTool(tool("extra-2"), (a, c) -> CompletableFuture.completedFuture(ServerTool.text("2"))));
      server.pageSize(2);
    }
    server.run();
  }

  private static JsonObject tool(String name) {
    return new JsonObject().put("name", name).put("description", "fake " + name)
      .put("inputSchema", new JsonObject().put("type", "object"));
  }
}
