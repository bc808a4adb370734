package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import java.util.List;

/**
 * The grants nobody has to approve in a browser: client credentials (with a client secret or
 * a {@code private_key_jwt} assertion) and the identity assertion grant (SEP-990).
 */
final class MachineGrants {

  private final OAuthManager manager;
  private final AuthHttp http;
  private final TokenClient tokenClient;
  private final OAuthOptions options;

  MachineGrants(OAuthManager manager, AuthHttp http, TokenClient tokenClient, OAuthOptions options) {
    this.manager = manager;
    this.http = http;
    this.tokenClient = tokenClient;
    this.options = options;
  }

  Future<TokenSet> clientCredentials(AuthServer as, List<String> scopes) {
    String method = options.getPrivateKey() != null ? "private_key_jwt"
      : Registration.secretMethod(as, options.getClientSecret());
    ClientIdentity client = new ClientIdentity(options.getClientId(), options.getClientSecret(), method);
    MultiMap form = MultiMap.caseInsensitiveMultiMap().set("grant_type", "client_credentials").set("resource", as.resource());
    withScopes(form, scopes);
    return tokenClient.request(as, client, form, scopes, List.of(), options);
  }

  /** Exchanges the person's ID token at the IdP for an ID-JAG, then that at the AS for tokens. */
  Future<TokenSet> identityAssertion(String server, String tenant, String whom, AuthServer as, List<String> scopes) {
    IdentityTokenSource source = manager.identityTokens();
    if (source == null) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, whom + ": the identity_assertion grant"
        + " needs the person's ID token, and no IdentityTokenSource is set (OAuthManager.identityTokens)"));
    }
    ClientIdentity client = new ClientIdentity(options.getClientId(), options.getClientSecret(),
      Registration.secretMethod(as, options.getClientSecret()));
    return Deadline.within(manager.vertx(), source.idToken(server, tenant), OAuthManager.PENDING_TTL_MS,
        whom + ": no ID token for the identity_assertion grant in time")
      .compose(idToken -> IdentityAssertion.exchange(http, whom, options, as, scopes, idToken))
      .compose(jag -> {
        MultiMap form = MultiMap.caseInsensitiveMultiMap().set("grant_type", IdentityAssertion.JWT_BEARER)
          .set("assertion", jag);
        withScopes(form, scopes);
        return tokenClient.request(as, client, form, scopes, List.of(jag), options);
      });
  }

  private static void withScopes(MultiMap form, List<String> scopes) {
    if (!scopes.isEmpty()) {
      form.set("scope", String.join(" ", scopes));
    }
  }
}
