package io.agentbus.mcp.auth;

/**
 * An authorization a person must grant.
 *
 * @param server the MCP server's name
 * @param tenant the tenant, or {@code null} for the shared identity
 * @param authorizationUrl the URL to open (carries {@code state}: do not log it)
 * @param redirectUri where the authorization server sends the person back
 */
public record AuthorizationRequest(String server, String tenant, String authorizationUrl, String redirectUri) {

  @Override
  public String toString() {
    return "AuthorizationRequest[server=" + server + ", tenant=" + tenant + "]";
  }
}
