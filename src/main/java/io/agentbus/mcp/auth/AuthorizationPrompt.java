package io.agentbus.mcp.auth;

import io.vertx.core.Future;

/**
 * How a person authorizes: given the authorization URL, have someone open it and complete
 * with the query of the redirect that comes back ({@code code}, {@code state}, {@code iss}).
 * The client checks {@code state} and {@code iss} itself. The future should fail (or the
 * caller's deadline ends it) when the person does not come back.
 */
@FunctionalInterface
public interface AuthorizationPrompt {

  /** Shows {@code request.authorizationUrl()}; completes with the redirect's query. */
  Future<AuthorizationCallback> authorize(AuthorizationRequest request);
}
