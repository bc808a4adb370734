package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Token endpoint requests (authorization code, refresh, client credentials) with the
 * client's authentication method, and the checks of the answer. Failures never show the
 * code, verifier, secrets or tokens involved; an {@code invalid_grant} answer is marked in
 * the exception's data ({@code {"oauthError": "invalid_grant"}}).
 */
final class TokenClient {

  private final AuthHttp http;
  private final String who;

  TokenClient(AuthHttp http, String who) {
    this.http = http;
    this.who = who;
  }

  /**
   * POSTs {@code form} (grant parameters) to the token endpoint with the client's
   * authentication added, and reads the answer.
   *
   * @param requested the scopes asked for: the granted ones when the answer does not say
   * @param secrets values to scrub from any error text (code, verifier, refresh token)
   */
  Future<TokenSet> request(AuthServer as, ClientIdentity client, MultiMap form, List<String> requested,
                           List<String> secrets, OAuthOptions options) {
    List<String> scrub = new ArrayList<>(secrets);
    scrub.add(client.clientSecret());
    String authorization = null;
    switch (client.authMethod()) {
      case "client_secret_basic" -> authorization = "Basic " + Base64.getEncoder().encodeToString(
        (enc(client.clientId()) + ":" + enc(client.clientSecret())).getBytes(StandardCharsets.UTF_8));
      case "client_secret_post" -> form.set("client_id", client.clientId()).set("client_secret", client.clientSecret());
      case "private_key_jwt" -> {
        String jwt;
        try {
          jwt = JwtAssertion.sign(client.clientId(), as.issuer(), options.getPrivateKey(), options.getSigningAlgorithm());
        } catch (IllegalArgumentException e) {
          return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": " + e.getMessage()));
        }
        scrub.add(jwt);
        form.set("client_id", client.clientId()).set("client_assertion_type", JwtAssertion.TYPE).set("client_assertion", jwt);
      }
      default -> form.set("client_id", client.clientId());
    }
    String grant = form.get("grant_type");
    return http.postForm(as.tokenEndpoint(), form, authorization, who, scrub).compose(r -> {
      if (!r.ok()) {
        String err = r.json() != null && r.json().getValue("error") instanceof String e ? e : null;
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the token request (" + grant
          + ") was refused with HTTP " + r.status() + ": " + AuthHttp.oauthError(r, scrub), null,
          err == null ? null : new JsonObject().put("oauthError", err), null));
      }
      JsonObject j = r.json();
      if (j == null || !(j.getValue("access_token") instanceof String access) || access.isEmpty()) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the token endpoint's answer has"
          + " no access_token"));
      }
      if (!(j.getValue("token_type") instanceof String type) || !type.equalsIgnoreCase("Bearer")) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the token endpoint issued a token"
          + " of type " + j.getValue("token_type") + ", not Bearer"));
      }
      long expiresAt = j.getValue("expires_in") instanceof Number n && n.longValue() > 0
        ? System.currentTimeMillis() + n.longValue() * 1000 : 0;
      List<String> scopes = j.getValue("scope") instanceof String s && !s.isBlank()
        ? Arrays.stream(s.trim().split("\\s+")).toList() : List.copyOf(requested);
      String refresh = j.getValue("refresh_token") instanceof String rt && !rt.isEmpty() ? rt : null;
      return Future.succeededFuture(new TokenSet(access, refresh, expiresAt, scopes, as.issuer(), as.resource(), client));
    });
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /** @return whether the failure is the AS saying the grant (code or refresh token) is no longer valid */
  static boolean invalidGrant(Throwable err) {
    return err instanceof McpException e && e.data() instanceof JsonObject d && "invalid_grant".equals(d.getString("oauthError"));
  }
}
