package io.agentbus.mcp.auth;

import java.util.List;

/**
 * One authorization request on its way: what the callback is checked against and what the
 * code is exchanged with. Holds the PKCE verifier: never log it.
 */
record PendingAuthorization(ServerAuth server, String tenant, String state, String verifier, String redirectUri,
                            AuthServer as, ClientIdentity client, List<String> scopes, String url, long timerId) {

  PendingAuthorization withTimer(long id) {
    return new PendingAuthorization(server, tenant, state, verifier, redirectUri, as, client, scopes, url, id);
  }

  @Override
  public String toString() {
    return "PendingAuthorization[server=" + server.name() + ", tenant=" + tenant + "]";
  }
}
