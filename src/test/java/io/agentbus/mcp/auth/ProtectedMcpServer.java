package io.agentbus.mcp.auth;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link OAuthTestServers} (a protected MCP server with a tool {@code echo} answering "ok", and
 * its authorization server, which approves at once) for tests outside this package.
 */
public final class ProtectedMcpServer {

  private final OAuthTestServers servers;

  private ProtectedMcpServer(OAuthTestServers servers) {
    this.servers = servers;
  }

  /** Starts both servers on 127.0.0.1, port 0. */
  public static Future<ProtectedMcpServer> start(Vertx vertx) {
    return new OAuthTestServers().start(vertx).map(ProtectedMcpServer::new);
  }

  /** @return the MCP endpoint */
  public String url() {
    return servers.mcpUrl();
  }

  /** @return how many access tokens the authorization server issued */
  public int tokensIssued() {
    return servers.tokenCounter.get();
  }

  /** @return every secret handed out or used: access and refresh tokens, the authorization code */
  public List<String> secrets() {
    List<String> all = new ArrayList<>(servers.validTokens);
    all.addAll(servers.validRefreshTokens);
    all.add("the-code");
    return all;
  }

  public Future<Void> close() {
    return servers.close();
  }
}
