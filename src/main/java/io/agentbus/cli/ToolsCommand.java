package io.agentbus.cli;

import io.agentbus.config.McpConfig;
import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.McpClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code agentbus tools [--mcp-config FILE] [--json]}: connects to every configured server
 * (in parallel) and prints its tools. Exit code 2 if any server failed.
 */
public final class ToolsCommand {

  private ToolsCommand() {
  }

  public static int run(Vertx vertx, CliArgs args, PrintStream out, PrintStream err) {
    McpConfig config = Cli.loadMcpConfig(args);
    Map<String, Future<McpClient>> connections = new LinkedHashMap<>();
    for (McpServerOptions server : config.enabledServers()) {
      McpClient client = McpClient.create(vertx, server);
      connections.put(server.getName(), client.connect().map(client)
        .recover(e -> client.close().transform(ar -> Future.failedFuture(e))));
    }
    Cli.await(Future.join(new ArrayList<>(connections.values())).otherwiseEmpty());
    boolean failed = false;
    JsonObject json = new JsonObject();
    for (Map.Entry<String, Future<McpClient>> e : connections.entrySet()) {
      Future<McpClient> f = e.getValue();
      if (f.failed()) {
        failed = true;
        err.println("agentbus: server '" + e.getKey() + "': " + f.cause().getMessage());
        json.put(e.getKey(), new JsonObject().put("error", f.cause().getMessage()));
        continue;
      }
      McpClient client = f.result();
      List<JsonObject> tools = client.tools();
      json.put(e.getKey(), new JsonObject()
        .put("serverInfo", client.initializeResult().getValue("serverInfo"))
        .put("protocolVersion", client.protocolVersion())
        .put("tools", new JsonArray(new ArrayList<>(tools))));
      if (!args.flag("json")) {
        printServer(out, e.getKey(), client, tools);
      }
    }
    if (args.flag("json")) {
      out.println(new JsonObject().put("servers", json).encodePrettily());
    }
    Cli.await(Future.join(connections.values().stream().filter(Future::succeeded)
      .map(f -> f.result().close()).toList()).otherwiseEmpty());
    return failed ? Cli.FAILURE : Cli.OK;
  }

  private static void printServer(PrintStream out, String name, McpClient client, List<JsonObject> tools) {
    JsonObject info = client.initializeResult().getJsonObject("serverInfo", new JsonObject());
    out.println(name + " (" + info.getString("name", "?") + " " + info.getString("version", "?")
      + ", protocol " + client.protocolVersion() + "): " + tools.size() + " tools");
    for (JsonObject tool : tools) {
      out.println("  " + tool.getString("name") + describe(tool));
    }
  }

  private static String describe(JsonObject tool) {
    Object d = tool.getValue("description");
    if (!(d instanceof String s) || s.isBlank()) {
      return "";
    }
    String line = s.strip().lines().findFirst().orElse("");
    return " - " + (line.length() > 100 ? line.substring(0, 97) + "..." : line);
  }
}
