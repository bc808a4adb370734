package io.agentbus.mcp.transport;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.http.AutoHttpTransport;
import io.agentbus.mcp.transport.http.LegacySseTransport;
import io.agentbus.mcp.transport.http.StreamableHttpTransport;
import io.agentbus.mcp.transport.stdio.StdioTransport;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/** Chooses the transport for a server's options. */
public final class McpTransports {

  private McpTransports() {
  }

  /** A new, unstarted transport bound to {@code context}. */
  public static McpTransport create(Vertx vertx, Context context, McpServerOptions options) {
    switch (options.getTransport()) {
      case STDIO:
        return new StdioTransport(vertx, context, options);
      case HTTP:
        return new StreamableHttpTransport(vertx, context, options);
      case SSE:
        return new LegacySseTransport(vertx, context, options);
      case AUTO_HTTP:
        return new AutoHttpTransport(vertx, context, options);
      default:
        throw new IllegalArgumentException("server '" + options.getName() + "': transport "
          + options.getTransport() + " is not available in this build");
    }
  }
}
