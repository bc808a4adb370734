package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decides who the client is at an authorization server, in the spec's order: the
 * pre-registered {@code clientId}/{@code clientSecret}; the Client ID Metadata Document URL
 * when the AS advertises {@code client_id_metadata_document_supported}; dynamic client
 * registration (RFC 7591) at its {@code registration_endpoint}. Registrations are kept per
 * (issuer, redirect URI) for the life of the process and shared by all tenants.
 */
final class Registration {

  private final AuthHttp http;
  private final String who;
  private final OAuthOptions options;
  private final Map<String, ClientIdentity> registered;

  Registration(AuthHttp http, String who, OAuthOptions options, Map<String, ClientIdentity> registered) {
    this.http = http;
    this.who = who;
    this.options = options;
    this.registered = registered;
  }

  static Map<String, ClientIdentity> cache() {
    return new ConcurrentHashMap<>();
  }

  Future<ClientIdentity> identify(AuthServer as, String redirectUri) {
    if (options.getClientId() != null) {
      String method = options.getPrivateKey() != null ? "private_key_jwt" : secretMethod(as, options.getClientSecret());
      return Future.succeededFuture(new ClientIdentity(options.getClientId(), options.getClientSecret(), method));
    }
    if (options.getClientMetadataUrl() != null && as.supportsCimd()) {
      return Future.succeededFuture(new ClientIdentity(options.getClientMetadataUrl(), null, "none"));
    }
    if (as.registrationEndpoint() == null) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the authorization server offers"
        + " no dynamic registration" + (options.getClientMetadataUrl() == null ? "" : " and no Client ID Metadata Documents")
        + "; set \"oauth\": {\"clientId\": ...} for this server in mcp.json"));
    }
    String key = as.issuer() + " " + redirectUri;
    ClientIdentity known = registered.get(key);
    if (known != null) {
      return Future.succeededFuture(known);
    }
    return register(as, redirectUri).onSuccess(c -> registered.put(key, c));
  }

  /** The method for a client with {@code secret}, from what the AS supports. */
  static String secretMethod(AuthServer as, String secret) {
    List<String> m = as.authMethods();
    if (secret == null) {
      return "none";
    }
    if (m.contains("client_secret_basic")) {
      return "client_secret_basic";
    }
    if (m.contains("client_secret_post")) {
      return "client_secret_post";
    }
    return m.contains("none") ? "none" : "client_secret_basic";
  }

  private Future<ClientIdentity> register(AuthServer as, String redirectUri) {
    List<String> m = as.authMethods();
    String wanted = m.contains("none") ? "none" : m.contains("client_secret_basic") ? "client_secret_basic"
      : m.contains("client_secret_post") ? "client_secret_post" : "none";
    URI redirect = URI.create(redirectUri);
    JsonObject body = new JsonObject()
      .put("client_name", "Agentbus")
      .put("redirect_uris", new JsonArray().add(redirectUri))
      .put("grant_types", new JsonArray().add("authorization_code").add("refresh_token"))
      .put("response_types", new JsonArray().add("code"))
      .put("token_endpoint_auth_method", wanted)
      .put("application_type", Urls.isLoopback(redirect.getHost()) ? "native" : "web");
    return http.postJson(as.registrationEndpoint(), body, who).compose(r -> {
      if (!r.ok()) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": dynamic client registration was"
          + " refused with HTTP " + r.status() + ": " + AuthHttp.oauthError(r, List.of())));
      }
      JsonObject j = r.json();
      if (j == null || !(j.getValue("client_id") instanceof String id) || id.isEmpty()) {
        return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, who + ": the registration answer has no"
          + " client_id"));
      }
      String secret = j.getValue("client_secret") instanceof String s && !s.isEmpty() ? s : null;
      String method = j.getValue("token_endpoint_auth_method") instanceof String tm ? tm
        : secret != null ? secretMethod(as, secret) : "none";
      if (secret == null && !method.equals("none")) {
        method = "none";
      }
      return Future.succeededFuture(new ClientIdentity(id, secret, method));
    });
  }
}
