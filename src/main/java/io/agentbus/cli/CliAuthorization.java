package io.agentbus.cli;

import io.agentbus.config.AgentConfig;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.mcp.auth.EncryptedFileTokenStore;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.OAuthOptions;
import io.agentbus.mcp.auth.TokenStores;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.StoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.PrintStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * OAuth for the {@code tools} and {@code call} commands: when a server they connect to may
 * need a person's authorization, a {@link LoopbackPrompt} is installed with the token store
 * {@code serve} uses given the same agent config ({@code --config}) and environment, and the
 * connection of such a server may take {@code --authorize-timeout} longer, since the person's
 * time is part of connecting.
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

  /** What {@link #install} set up for one command: closed when the command ends. */
  record Installed(LoopbackPrompt prompt, ConversationStore store) {

    /** Closes the loopback listener and the store the tokens went to (if the command opened them). */
    Future<Void> close() {
      Future<Void> closed = prompt == null ? Future.succeededFuture() : prompt.close();
      return store == null ? closed : closed.eventually(store::close);
    }
  }

  /**
   * Installs the OAuth manager of the command's Vert.x when one of {@code servers} has
   * {@code oauth} (before any of them connects): the token store {@code serve} uses with the
   * same agent config ({@code AGENTBUS_TOKEN_KEY} set and a durable conversation store: that
   * store's table; otherwise {@link TokenStores#fromEnvironment(Vertx)}), and a
   * {@link LoopbackPrompt} when one may need a person.
   *
   * @param agent the agent config ({@code --config}), read only when a server has {@code oauth}
   * @return what to close when the command ends, or {@code null} when no server has {@code oauth}
   * @throws RuntimeException with the message to show (the config is wrong, the store cannot be
   *     opened, the listener cannot start)
   */
  static Installed install(Vertx vertx, Supplier<AgentConfig> agent, List<McpServerOptions> servers, long timeoutMs,
                           PrintStream err) {
    if (servers.stream().noneMatch(s -> s.getOauth() != null)) {
      return null;
    }
    ConversationStore store = null;
    String key = System.getenv(EncryptedFileTokenStore.KEY_ENV);
    StoreOptions storeOptions = key == null || key.isBlank() ? null : agent.get().store();
    if (storeOptions != null && storeOptions.getType() != StoreOptions.Type.MEMORY) {
      try {
        store = Cli.await(ConversationStore.create(vertx, storeOptions));
      } catch (RuntimeException e) {
        throw new IllegalStateException("the OAuth tokens are kept in the conversation store, which cannot be opened: "
          + e.getMessage(), e);
      }
    }
    LoopbackPrompt prompt = null;
    try {
      if (servers.stream().anyMatch(CliAuthorization::needsPerson)) {
        prompt = Cli.await(LoopbackPrompt.start(vertx, timeoutMs, err));
      }
    } catch (RuntimeException e) {
      if (store != null) {
        Cli.await(store.close());
      }
      throw e;
    }
    OAuthManager manager = OAuthManager.install(vertx, TokenStores.fromEnvironment(vertx, store), prompt);
    if (prompt != null) {
      manager.defaultRedirectUri(prompt.redirectUri());
    }
    return new Installed(prompt, store);
  }

  /** The options the command connects with: a server that may need a person gets their time on top of its connect timeout. */
  static McpServerOptions forCommand(McpServerOptions server, long timeoutMs) {
    return needsPerson(server) ? new McpServerOptions(server).setConnectTimeoutMs(server.getConnectTimeoutMs() + timeoutMs)
      : server;
  }
}
