package io.agentbus.cli;

import io.agentbus.config.McpConfig;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.ToolFilter;
import io.vertx.core.Vertx;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code agentbus call SERVER TOOL 'JSON-ARGS' [--mcp-config FILE] [--timeout MS]
 * [--include-hidden] [--authorize-timeout MS] [--config FILE]}: prints the {@code CallToolResult}; exit code
 * 0, 1 for {@code isError: true}, 2 for protocol, connection or authorization errors. An
 * OAuth server that needs a person's authorization gets it through a {@link LoopbackPrompt}; its tokens go
 * where {@code serve} with the same {@code --config} keeps them ({@link CliAuthorization}). A tool hidden by the server's
 * {@code allowedTools} / {@code disabledTools} is refused (exit 2) unless
 * {@code --include-hidden} is given, as it is everywhere else in Agentbus.
 */
public final class CallCommand {

  /** Flag that calls a tool even though {@code allowedTools} / {@code disabledTools} hide it. */
  public static final String INCLUDE_HIDDEN = "include-hidden";

  private CallCommand() {
  }

  public static int run(Vertx vertx, CliArgs args, PrintStream out, PrintStream err) {
    List<String> pos = args.positional();
    if (pos.size() < 2 || pos.size() > 3) {
      return Cli.fail(err, "usage: agentbus call SERVER TOOL ['JSON-ARGS'] [--mcp-config FILE] [--timeout MS] [--include-hidden]"
        + " [--authorize-timeout MS] [--config FILE]");
    }
    JsonObject arguments;
    try {
      arguments = pos.size() == 3 ? new JsonObject(pos.get(2)) : new JsonObject();
    } catch (DecodeException | ClassCastException e) {
      return Cli.fail(err, "JSON-ARGS must be a JSON object, e.g. '{\"message\":\"hi\"}'");
    }
    McpConfig config = Cli.loadMcpConfig(args);
    McpServerOptions server = config.servers().stream().filter(s -> s.getName().equals(pos.get(0))).findFirst().orElse(null);
    if (server == null) {
      return Cli.fail(err, "no server '" + pos.get(0) + "' in the MCP config (have: "
        + config.servers().stream().map(McpServerOptions::getName).toList() + ")");
    }
    String tool = pos.get(1);
    if (!args.flag(INCLUDE_HIDDEN) && !new ToolFilter(server.getAllowedTools(), server.getDisabledTools()).allows(tool)) {
      return Cli.fail(err, "tool '" + tool + "' of server '" + server.getName() + "' is hidden by its allowedTools/disabledTools"
        + " in " + args.option("mcp-config", Cli.DEFAULT_MCP_CONFIG) + " (add --include-hidden to call it anyway)");
    }
    CallOptions callOptions = new CallOptions();
    String timeout = args.option("timeout", null);
    if (timeout != null) {
      try {
        callOptions.setTimeoutMs(Long.parseLong(timeout));
      } catch (IllegalArgumentException e) {
        return Cli.fail(err, "--timeout must be a positive number of milliseconds");
      }
    }
    long authorizeTimeout;
    CliAuthorization.Installed prompt;
    try {
      authorizeTimeout = CliAuthorization.timeoutMs(args);
      prompt = CliAuthorization.install(vertx, () -> Cli.loadAgentConfig(args), List.of(server), authorizeTimeout, err);
    } catch (RuntimeException e) {
      return Cli.fail(err, e.getMessage());
    }
    // a scoped server runs as no tenant here, like its listing connection
    McpClient client = McpClient.create(vertx, CliAuthorization.forCommand(server.withoutTenantValues(), authorizeTimeout));
    try {
      JsonObject result = Cli.await(client.connect().compose(init -> client.callTool(tool, arguments, callOptions)));
      out.println(result.encodePrettily());
      return result.getBoolean("isError", false) ? Cli.TOOL_ERROR : Cli.OK;
    } catch (RuntimeException e) {
      return Cli.fail(err, Cli.aboutServer(server.getName(), e));
    } finally {
      Cli.await(client.close().otherwiseEmpty());
      if (prompt != null) {
        Cli.await(prompt.close());
      }
    }
  }
}
