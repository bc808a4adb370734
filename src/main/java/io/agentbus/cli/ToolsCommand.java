package io.agentbus.cli;

import io.agentbus.config.McpConfig;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.ToolFilter;
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
 * {@code agentbus tools [--mcp-config FILE] [--json] [--include-hidden]}: connects to every
 * configured server (in parallel) and prints the tools it exposes, i.e. after its
 * {@code allowedTools} / {@code disabledTools}; with {@code --include-hidden} the hidden ones
 * too, marked as such. Exit code 2 if any server failed. An OAuth server that needs a
 * person's authorization gets it through a {@link LoopbackPrompt} ({@code --authorize-timeout}); its
 * tokens go where {@code serve} with the same {@code --config} keeps them ({@link CliAuthorization}).
 */
public final class ToolsCommand {

  private ToolsCommand() {
  }

  public static int run(Vertx vertx, CliArgs args, PrintStream out, PrintStream err) {
    McpConfig config = Cli.loadMcpConfig(args);
    boolean includeHidden = args.flag(CallCommand.INCLUDE_HIDDEN);
    long authorizeTimeout;
    CliAuthorization.Installed prompt;
    try {
      authorizeTimeout = CliAuthorization.timeoutMs(args);
      prompt = CliAuthorization.install(vertx, () -> Cli.loadAgentConfig(args), config.enabledServers(), authorizeTimeout, err);
    } catch (RuntimeException e) {
      return Cli.fail(err, e.getMessage());
    }
    try {
      return list(vertx, config, args, includeHidden, authorizeTimeout, out, err);
    } finally {
      if (prompt != null) {
        Cli.await(prompt.close());
      }
    }
  }

  private static int list(Vertx vertx, McpConfig config, CliArgs args, boolean includeHidden, long authorizeTimeout,
                          PrintStream out, PrintStream err) {
    Map<String, Future<McpClient>> connections = new LinkedHashMap<>();
    Map<String, ToolFilter> filters = new LinkedHashMap<>();
    for (McpServerOptions server : config.enabledServers()) {
      filters.put(server.getName(), new ToolFilter(server.getAllowedTools(), server.getDisabledTools()));
      McpClient client = McpClient.create(vertx, CliAuthorization.forCommand(server.withoutTenantValues(), authorizeTimeout));
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
        Cli.fail(err, Cli.aboutServer(e.getKey(), f.cause()));
        json.put(e.getKey(), new JsonObject().put("error", f.cause().getMessage()));
        continue;
      }
      McpClient client = f.result();
      ToolFilter filter = filters.get(e.getKey());
      List<JsonObject> all = client.tools();
      List<String> hidden = all.stream().map(t -> t.getString("name")).filter(n -> !filter.allows(n)).toList();
      List<JsonObject> tools = includeHidden ? all : all.stream().filter(t -> filter.allows(t.getString("name"))).toList();
      JsonObject doc = new JsonObject()
        .put("serverInfo", client.initializeResult().getValue("serverInfo"))
        .put("protocolVersion", client.protocolVersion())
        .put("tools", new JsonArray(new ArrayList<>(tools)));
      if (!hidden.isEmpty()) {
        doc.put("hidden", new JsonArray(new ArrayList<>(hidden)));
      }
      json.put(e.getKey(), doc);
      if (!args.flag("json")) {
        printServer(out, e.getKey(), client, tools, hidden, includeHidden);
      }
    }
    if (args.flag("json")) {
      out.println(new JsonObject().put("servers", json).encodePrettily());
    }
    Cli.await(Future.join(connections.values().stream().filter(Future::succeeded)
      .map(f -> f.result().close()).toList()).otherwiseEmpty());
    return failed ? Cli.FAILURE : Cli.OK;
  }

  private static void printServer(PrintStream out, String name, McpClient client, List<JsonObject> tools,
                                  List<String> hidden, boolean includeHidden) {
    JsonObject info = client.initializeResult().getJsonObject("serverInfo", new JsonObject());
    int shown = tools.size() - (includeHidden ? hidden.size() : 0);
    String hiddenNote = hidden.isEmpty() ? ""
      : " (" + hidden.size() + " more hidden by allowedTools/disabledTools" + (includeHidden ? ", marked [hidden])" : "; --include-hidden lists them)");
    out.println(name + " (" + info.getString("name", "?") + " " + info.getString("version", "?")
      + ", protocol " + client.protocolVersion() + "): " + shown + " tools" + hiddenNote);
    for (JsonObject tool : tools) {
      String toolName = tool.getString("name");
      out.println("  " + toolName + (hidden.contains(toolName) ? " [hidden]" : "") + describe(tool));
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
