package io.agentbus.mcp.auth;

import io.vertx.core.json.JsonObject;

/**
 * Who the client is at an authorization server: its {@code client_id}, its secret (if any)
 * and how it authenticates at the token endpoint ({@code client_secret_basic},
 * {@code client_secret_post}, {@code private_key_jwt} or {@code none}). {@link #toString()}
 * leaves the secret out.
 *
 * @param clientId the client id (a URL for a Client ID Metadata Document)
 * @param clientSecret the secret, or {@code null}
 * @param authMethod the token endpoint auth method
 */
public record ClientIdentity(String clientId, String clientSecret, String authMethod) {

  /** The stored shape. */
  public JsonObject toJson() {
    JsonObject j = new JsonObject().put("clientId", clientId).put("authMethod", authMethod);
    if (clientSecret != null) {
      j.put("clientSecret", clientSecret);
    }
    return j;
  }

  /** Reads {@link #toJson()}'s shape. */
  public static ClientIdentity fromJson(JsonObject j) {
    return new ClientIdentity(j.getString("clientId"), j.getString("clientSecret"), j.getString("authMethod", "none"));
  }

  @Override
  public String toString() {
    return "ClientIdentity[clientId=" + clientId + ", authMethod=" + authMethod + "]";
  }
}
