package io.agentbus.mcp.server;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;

/**
 * Makes the client of one scoped connection (not yet connected), on the server verticle's
 * context. The options are the server's with this key's tenant values in {@code env} and
 * {@code headers}; the key names the tenant, so a connector can add what belongs to it (an
 * OAuth token stored per tenant and server, say) before {@code McpClient.create}.
 */
@FunctionalInterface
public interface ScopedConnector {

  /**
   * @param key whose connection it is
   * @param resolved the server's options for that key
   * @return a new client; the pool connects, uses and closes it
   */
  McpClient open(ScopeKey key, McpServerOptions resolved);
}
