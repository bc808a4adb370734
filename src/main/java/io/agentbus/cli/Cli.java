package io.agentbus.cli;

import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.vertx.core.Future;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;

/** What the command-line commands share: exit codes, config loading, awaiting results. */
public final class Cli {

  /** Success. */
  public static final int OK = 0;
  /** The tool ran and reported {@code isError: true}. */
  public static final int TOOL_ERROR = 1;
  /** Usage, configuration, protocol or connection error. */
  public static final int FAILURE = 2;

  /** Where Agentbus looks for the MCP server list by default. */
  public static final String DEFAULT_MCP_CONFIG = "conf/mcp.json";

  private Cli() {
  }

  /** Where Agentbus looks for its own settings by default (optional there). */
  public static final String DEFAULT_AGENT_CONFIG = "conf/agent.json";

  /** Loads {@code --config} (default {@code conf/agent.json}, which may be absent). */
  public static AgentConfig loadAgentConfig(CliArgs args) {
    String file = args.option("config", null);
    return AgentConfig.load(Path.of(file != null ? file : DEFAULT_AGENT_CONFIG), file != null, System.getenv());
  }

  /** Loads the MCP config or throws a {@link ConfigException} naming what is wrong. */
  public static McpConfig loadMcpConfig(CliArgs args) {
    return McpConfig.load(Path.of(args.option("mcp-config", DEFAULT_MCP_CONFIG)), EnvExpander.system());
  }

  /**
   * Waits for a result. Only for the command-line main thread, which is never a Vert.x
   * thread; unwraps the failure cause.
   */
  public static <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : e;
    }
  }

  /**
   * Puts a failure in the words of one server: {@code server 'x': message}, unless the
   * message names the server already (most MCP failures do), so it is never named twice.
   */
  public static String aboutServer(String server, Throwable failure) {
    String message = failure.getMessage() != null ? failure.getMessage() : failure.toString();
    return message.contains("'" + server + "'") ? message : "server '" + server + "': " + message;
  }

  /** Prints a one-line error. */
  public static int fail(PrintStream err, String message) {
    err.println("agentbus: " + message);
    return FAILURE;
  }
}
