package io.agentbus.mcp.auth;

import io.vertx.core.Future;

/**
 * Supplies the person's ID token from the enterprise identity provider for the
 * {@code identity_assertion} grant (SEP-990): the application got it when the person signed
 * in. Set with {@link OAuthManager#identityTokens(IdentityTokenSource)}.
 */
@FunctionalInterface
public interface IdentityTokenSource {

  /** @return the ID token of {@code tenant}'s signed-in person (a secret: never log it) */
  Future<String> idToken(String server, String tenant);
}
