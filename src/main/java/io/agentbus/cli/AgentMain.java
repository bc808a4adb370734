package io.agentbus.cli;

import io.agentbus.AgentbusOptions;
import io.agentbus.options.ConfigException;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** The {@code agentbus} command line: {@code java -jar target/agentbus.jar COMMAND ...}. */
public final class AgentMain {

  private static final String USAGE = String.join("\n",
    "usage: java -jar agentbus.jar COMMAND [options]",
    "  serve [--config FILE] [--mcp-config FILE]   run Agentbus: MCP servers, agent loop and HTTP API",
    "        [--cluster] [--roles http,conversation,mcp]",
    "                                              join a cluster (Hazelcast); run only these roles on this node",
    "  tools [--mcp-config FILE] [--json] [--include-hidden]",
    "                                              connect to every MCP server and list the tools it exposes",
    "  call SERVER TOOL ['JSON-ARGS'] [--mcp-config FILE] [--timeout MS] [--include-hidden]",
    "                                              call one tool and print the result",
    "      --include-hidden: also list / call tools that allowedTools or disabledTools hide",
    "      --authorize-timeout MS: how long tools / call wait for a person to authorize an OAuth server",
    "        in a browser (default 300000, at most 600000); the URL to open is printed to stderr",
    "      --config FILE: the agent config whose store keeps OAuth tokens, as for serve (default conf/agent.json)",
    "  chat [--config FILE] [--mcp-config FILE]    chat in the terminal with an in-process Agentbus",
    "  chat --url http://HOST:PORT [--token T]     chat with a running 'serve' (token also from AGENTBUS_TOKEN)",
    "  demo-server                                 run the built-in demo MCP server on stdio",
    "options: --verbose  log at INFO to stderr (default for these commands: WARN; chat logs to a file it names)");

  private AgentMain() {
  }

  public static void main(String[] argv) {
    System.exit(run(Arrays.asList(argv), System.out, System.err));
  }

  /** Runs one command and returns its exit code. */
  public static int run(List<String> argv, PrintStream out, PrintStream err) {
    if (argv.isEmpty() || argv.get(0).equals("help") || argv.get(0).equals("--help")) {
      out.println(USAGE);
      return argv.isEmpty() ? Cli.FAILURE : Cli.OK;
    }
    String command = argv.get(0);
    if (command.equals("demo-server")) {
      return DemoServerCommand.run();
    }
    CliArgs args;
    try {
      args = new CliArgs(argv.subList(1, argv.size()), Set.of("json", "verbose", "include-hidden", "cluster"),
        Set.of("mcp-config", "timeout", "config", "url", "token", "roles",
        CliAuthorization.OPTION));
    } catch (IllegalArgumentException e) {
      return Cli.fail(err, e.getMessage() + "\n" + USAGE);
    }
    if (!command.equals("serve") && !args.flag("verbose") && System.getenv("AGENTBUS_LOG_LEVEL") == null) {
      // Must happen before the first logger is created.
      System.setProperty("AGENTBUS_LOG_LEVEL", "WARN");
      System.setProperty("AGENTBUS_SERVER_STDERR_LEVEL", "WARN");
    }
    // One event loop per core (Vert.x defaults to two): a turn runs on one loop, and the
    // conversation instances and HTTP listeners are deployed one per loop.
    VertxOptions vertxOptions = new VertxOptions().setEventLoopPoolSize(AgentbusOptions.DEFAULT_CONVERSATION_INSTANCES);
    if ("serve".equals(command)) {
      try {
        return ServeCommand.main(args, vertxOptions, out, err);
      } catch (ConfigException e) {
        return Cli.fail(err, e.getMessage());
      }
    }
    Vertx vertx = Vertx.vertx(vertxOptions);
    try {
      return switch (command) {
        case "tools" -> ToolsCommand.run(vertx, args, out, err);
        case "call" -> CallCommand.run(vertx, args, out, err);
        case "chat" -> ChatCommand.run(vertx, args, System.in, out, err);
        default -> Cli.fail(err, "unknown command '" + command + "'\n" + USAGE);
      };
    } catch (ConfigException e) {
      return Cli.fail(err, e.getMessage());
    } finally {
      Cli.await(vertx.close().otherwiseEmpty());
    }
  }
}
