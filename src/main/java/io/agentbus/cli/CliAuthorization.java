package io.agentbus.cli;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.OAuthOptions;
import java.io.PrintStream;
import java.util.List;

/**
 * OAuth for the {@code tools} and {@code call} commands: when a server they connect to may
 * need a person's authorization, a {@link LoopbackPrompt} is installed with the token store
 * the environment configures (the one {@code serve} reads), and the connection of such a
 * server may take {@code --authorize-timeout} longer, since the person's time is part of
 * connecting.
 */
final class CliAuthorization {

  /** The option that bounds how long a person may take to authorize. */
  static final String OPTION = "authorize-timeout";
  /** Its default: 5 minutes. */
  static final long DEFAULT_TIMEOUT_MS = 300_000;

  private CliAuthorization() {
  }

  /**
   * @return {@code --authorize-timeout} in milliseconds
   * @throws IllegalArgumentException with the message to show when it is not 1 to 600000
   */
  static long timeoutMs(CliArgs args) {
    String value = args.option(OPTION, null);
    if (value == null) {
      return DEFAULT_TIMEOUT_MS;
    }
    long ms;
    try {
      ms = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      ms = -1;
    }
    if (ms < 1 || ms > OAuthManager.PENDING_TTL_MS) {
      throw new IllegalArgumentException("--" + OPTION + " must be milliseconds from 1 to " + OAuthManager.PENDING_TTL_MS
        + " (was '" + value + "')");
    }
    return ms;
  }

  /** Whether connecting to {@code server} may need a person to authorize (an HTTP server with the code grant). */
  static boolean needsPerson(McpServerOptions server) {
    OAuthOptions oauth = server.getOauth();
    return oauth != null && oauth.getGrant() == OAuthOptions.Grant.AUTHORIZATION_CODE
      && (server.getTransport() == Transport.HTTP || server.getTransport() == Transport.AUTO_HTTP);
  }

  /**
   * Installs a {@link LoopbackPrompt} on the command's Vert.x when one of {@code servers} may
   * need it (before any of them connects).
   *
   * @return the prompt to close when the command ends, or {@code null} when none is needed
   */
  static LoopbackPrompt install(io.vertx.core.Vertx vertx, List<McpServerOptions> servers, long timeoutMs, PrintStream err) {
    if (servers.stream().noneMatch(CliAuthorization::needsPerson)) {
      return null;
    }
    LoopbackPrompt prompt = Cli.await(LoopbackPrompt.start(vertx, timeoutMs, err));
    OAuthManager.install(vertx, OAuthManager.storeFromEnvironment(vertx), prompt).defaultRedirectUri(prompt.redirectUri());
    return prompt;
  }

  /** The options the command connects with: a server that may need a person gets their time on top of its connect timeout. */
  static McpServerOptions forCommand(McpServerOptions server, long timeoutMs) {
    return needsPerson(server) ? new McpServerOptions(server).setConnectTimeoutMs(server.getConnectTimeoutMs() + timeoutMs)
      : server;
  }
}
