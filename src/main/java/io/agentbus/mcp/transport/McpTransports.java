package io.agentbus.mcp.transport;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.http.AutoHttpTransport;
import io.agentbus.mcp.transport.http.LegacySseTransport;
import io.agentbus.mcp.transport.http.StreamableHttpTransport;
import io.agentbus.mcp.transport.stdio.StdioTransport;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.OAuthSession;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** Chooses the transport for a server's options. */
public final class McpTransports {

  private McpTransports() {
  }

  /** A new, unstarted transport bound to {@code context}, with the shared OAuth identity. */
  public static McpTransport create(Vertx vertx, Context context, McpServerOptions options) {
    return create(vertx, context, options, null);
  }

  /**
   * A new, unstarted transport bound to {@code context} whose OAuth tokens (for a server with
   * {@code oauth}) are {@code tenant}'s.
   *
   * @param tenant whose tokens an HTTP connection sends, or {@code null} for the shared identity
   */
  public static McpTransport create(Vertx vertx, Context context, McpServerOptions options, String tenant) {
    switch (options.getTransport()) {
      case STDIO:
        return new StdioTransport(vertx, context, options);
      case HTTP:
        return new StreamableHttpTransport(vertx, context, options, oauth(vertx, options, tenant));
      case SSE:
        return new LegacySseTransport(vertx, context, options);
      case AUTO_HTTP:
        return new AutoHttpTransport(vertx, context, options, oauth(vertx, options, tenant));
      default:
        throw new IllegalArgumentException("server '" + options.getName() + "': transport "
          + options.getTransport() + " is not available in this build");
    }
  }

  private static OAuthSession oauth(Vertx vertx, McpServerOptions options, String tenant) {
    return options.getOauth() == null ? null : OAuthManager.of(vertx).session(options, tenant);
  }
}
