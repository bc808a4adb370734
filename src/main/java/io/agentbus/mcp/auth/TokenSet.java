package io.agentbus.mcp.auth;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The tokens held for one (tenant, server), with what is needed to refresh them: the issuer
 * that issued them, the resource they are for and the client identity used. Holds secrets:
 * {@link #toString()} shows none of them.
 *
 * @param accessToken the access token
 * @param refreshToken the refresh token, or {@code null}
 * @param expiresAtMs when the access token expires (epoch ms), 0 when unknown
 * @param scopes the granted (or, when the AS did not say, requested) scopes
 * @param issuer the authorization server that issued them
 * @param resource the resource they were requested for
 * @param client the client identity that obtained them
 */
public record TokenSet(String accessToken, String refreshToken, long expiresAtMs, List<String> scopes, String issuer,
                       String resource, ClientIdentity client) {

  /** The stored shape. */
  public JsonObject toJson() {
    JsonObject j = new JsonObject()
      .put("accessToken", accessToken)
      .put("expiresAtMs", expiresAtMs)
      .put("scopes", new JsonArray(new ArrayList<>(scopes)))
      .put("issuer", issuer)
      .put("resource", resource)
      .put("client", client.toJson());
    if (refreshToken != null) {
      j.put("refreshToken", refreshToken);
    }
    return j;
  }

  /** Reads {@link #toJson()}'s shape. */
  public static TokenSet fromJson(JsonObject j) {
    List<String> scopes = new ArrayList<>();
    JsonArray a = j.getJsonArray("scopes", new JsonArray());
    a.forEach(o -> scopes.add(String.valueOf(o)));
    return new TokenSet(j.getString("accessToken"), j.getString("refreshToken"), j.getLong("expiresAtMs", 0L),
      List.copyOf(scopes), j.getString("issuer"), j.getString("resource"),
      ClientIdentity.fromJson(j.getJsonObject("client", new JsonObject())));
  }

  /** @return whether the access token expires within {@code marginMs} of {@code nowMs} */
  public boolean expiresWithin(long nowMs, long marginMs) {
    return expiresAtMs > 0 && expiresAtMs - nowMs <= marginMs;
  }

  @Override
  public String toString() {
    return "TokenSet[issuer=" + issuer + ", resource=" + resource + ", scopes=" + scopes + ", expiresAtMs=" + expiresAtMs
      + ", refresh=" + (refreshToken != null) + "]";
  }
}
