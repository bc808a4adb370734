package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import java.util.List;

/**
 * The first step of the {@code identity_assertion} grant (SEP-990): RFC 8693 token exchange
 * at the enterprise IdP of the person's ID token for an Identity Assertion JWT Authorization
 * Grant (ID-JAG) whose audience is the authorization server and whose resource is the MCP
 * server. The second step is the AS's {@code jwt-bearer} grant ({@link #JWT_BEARER}).
 */
final class IdentityAssertion {

  static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
  static final String JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
  static final String ID_JAG = "urn:ietf:params:oauth:token-type:id-jag";
  static final String ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token";

  private IdentityAssertion() {
  }

  /** Exchanges {@code idToken} at the IdP; completes with the ID-JAG. */
  static Future<String> exchange(AuthHttp http, String who, OAuthOptions options, AuthServer as, List<String> scopes,
                                 String idToken) {
    MultiMap form = MultiMap.caseInsensitiveMultiMap()
      .set("grant_type", TOKEN_EXCHANGE)
      .set("requested_token_type", ID_JAG)
      .set("audience", as.issuer())
      .set("resource", as.resource())
      .set("subject_token", idToken)
      .set("subject_token_type", ID_TOKEN)
      .set("client_id", options.getIdpClientId());
    if (options.getIdpClientSecret() != null) {
      form.set("client_secret", options.getIdpClientSecret());
    }
    if (!scopes.isEmpty()) {
      form.set("scope", String.join(" ", scopes));
    }
    List<String> secrets = java.util.Arrays.asList(idToken, options.getIdpClientSecret());
    return http.postForm(options.getIdpTokenEndpoint(), form, null, who, secrets).compose(r -> {
      if (!r.ok()) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the identity provider refused"
          + " the token exchange with HTTP " + r.status() + ": " + AuthHttp.oauthError(r, secrets)));
      }
      if (r.json() == null || !(r.json().getValue("access_token") instanceof String jag) || jag.isEmpty()
        || !ID_JAG.equals(r.json().getValue("issued_token_type"))) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the identity provider's answer"
          + " holds no identity assertion grant (issued_token_type " + ID_JAG + ")"));
      }
      return Future.succeededFuture(jag);
    });
  }
}
