package io.agentbus.mcp.auth;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * What discovery found for one MCP server: the authorization server's metadata and the
 * resource to name in requests.
 *
 * @param issuer the issuer (the authorization server URL), without a trailing slash
 * @param metadata the RFC 8414 / OIDC metadata, or the 2025-03-26 defaults
 * @param resource the canonical resource URI for the {@code resource} parameter
 * @param resourceScopes the protected-resource metadata's {@code scopes_supported} (empty when none)
 * @param legacy whether the server has no protected-resource metadata (2025-03-26 style)
 */
record AuthServer(String issuer, JsonObject metadata, String resource, List<String> resourceScopes, boolean legacy) {

  String authorizationEndpoint() {
    return metadata.getString("authorization_endpoint");
  }

  String tokenEndpoint() {
    return metadata.getString("token_endpoint");
  }

  String registrationEndpoint() {
    return metadata.getValue("registration_endpoint") instanceof String s ? s : null;
  }

  boolean supportsCimd() {
    return Boolean.TRUE.equals(metadata.getValue("client_id_metadata_document_supported"));
  }

  /** Whether the AS says it puts {@code iss} in every authorization response (RFC 9207). */
  boolean promisesIss() {
    return Boolean.TRUE.equals(metadata.getValue("authorization_response_iss_parameter_supported"));
  }

  List<String> scopesSupported() {
    return strings("scopes_supported");
  }

  /** @return the token endpoint auth methods; RFC 8414's default when absent */
  List<String> authMethods() {
    List<String> l = strings("token_endpoint_auth_methods_supported");
    return l.isEmpty() ? List.of("client_secret_basic") : l;
  }

  List<String> strings(String field) {
    List<String> out = new ArrayList<>();
    if (metadata.getValue(field) instanceof JsonArray a) {
      for (Object o : a) {
        if (o instanceof String s) {
          out.add(s);
        }
      }
    }
    return out;
  }
}
