package io.agentbus.mcp.server;

/**
 * Whose connection a scoped call uses: a tenant ({@code scope: tenant}), or a tenant's
 * conversation ({@code scope: conversation}). Two calls share a connection exactly when their
 * keys are equal, so a tenant's calls never reach another tenant's connection.
 *
 * @param tenant the caller's tenant, or {@code null} when the call names none
 * @param conversationId the caller's conversation ({@code scope: conversation}), else {@code null}
 */
public record ScopeKey(String tenant, String conversationId) {

  /** @return how messages name the connection, e.g. {@code for tenant 'acme'} */
  public String describe() {
    String who = tenant == null ? "without a tenant" : "for tenant '" + tenant + "'";
    return conversationId == null ? who : who + ", conversation '" + conversationId + "'";
  }
}
