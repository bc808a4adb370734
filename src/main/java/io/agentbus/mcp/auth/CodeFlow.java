package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * The authorization code grant's two halves: the authorization URL (PKCE S256, {@code state},
 * {@code resource}, {@code scope}) and, for the callback, the checks of {@code state},
 * {@code error} and {@code iss} (RFC 9207) before the code is exchanged.
 */
final class CodeFlow {

  private final TokenClient tokenClient;
  private final OAuthOptions options;

  CodeFlow(TokenClient tokenClient, OAuthOptions options) {
    this.tokenClient = tokenClient;
    this.options = options;
  }

  /** @return the authorization URL for the request's fields */
  static String url(AuthServer as, ClientIdentity client, String redirectUri, List<String> scopes, String state,
                    String verifier) {
    StringBuilder url = new StringBuilder(as.authorizationEndpoint())
      .append(as.authorizationEndpoint().contains("?") ? '&' : '?')
      .append("response_type=code")
      .append("&client_id=").append(enc(client.clientId()))
      .append("&redirect_uri=").append(enc(redirectUri))
      .append("&code_challenge=").append(enc(Pkce.challenge(verifier)))
      .append("&code_challenge_method=S256")
      .append("&state=").append(enc(state))
      .append("&resource=").append(enc(as.resource()));
    if (!scopes.isEmpty()) {
      url.append("&scope=").append(enc(String.join(" ", scopes)));
    }
    return url.toString();
  }

  /**
   * Checks the callback against the pending request and exchanges the code.
   *
   * @param checkState whether {@code state} must still be compared (not when the pending request was found by it)
   */
  Future<TokenSet> exchange(PendingAuthorization p, AuthorizationCallback cb, boolean checkState, String whom) {
    if (checkState && (cb.state() == null || !MessageDigest.isEqual(cb.state().getBytes(StandardCharsets.UTF_8),
      p.state().getBytes(StandardCharsets.UTF_8)))) {
      return fail(whom + ": the authorization response's state " + (cb.state() == null ? "is missing"
        : "does not match the request") + "; not using it");
    }
    if (cb.error() != null) {
      String d = cb.errorDescription() == null ? "" : ": " + Secrets.scrub(cb.errorDescription(), List.of(p.state()));
      d = d.length() > 200 ? d.substring(0, 200) + "..." : d;
      return fail(whom + ": authorization was refused (" + cb.error().replaceAll("[^A-Za-z0-9_.-]", "?")
        + d.replaceAll("\\p{Cntrl}", " ") + ")");
    }
    if (cb.iss() != null ? !Urls.trimSlash(cb.iss()).equals(p.as().issuer()) : p.as().promisesIss()) {
      return fail(whom + ": the authorization response's iss " + (cb.iss() == null
        ? "is missing though the authorization server promises it"
        : "does not name the authorization server the request went to") + " (RFC 9207); not using it");
    }
    if (cb.code() == null || cb.code().isEmpty()) {
      return fail(whom + ": the authorization response has no code");
    }
    MultiMap form = MultiMap.caseInsensitiveMultiMap()
      .set("grant_type", "authorization_code")
      .set("code", cb.code())
      .set("redirect_uri", p.redirectUri())
      .set("code_verifier", p.verifier())
      .set("resource", p.as().resource());
    return tokenClient.request(p.as(), p.client(), form, p.scopes(), List.of(cb.code(), p.verifier()), options);
  }

  private static Future<TokenSet> fail(String message) {
    return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, message));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
