package io.agentbus.mcp.auth;

import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.agentbus.options.JsonFields;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The {@code "oauth"} object of an HTTP server's mcp.json entry. Every field is optional:
 * an empty object means "discover everything, register dynamically, ask a person".
 *
 * <pre>{@code
 * "oauth": {"clientId": "...", "clientSecret": "${SECRET}", "clientMetadataUrl": "https://app.example/client.json",
 *           "scopes": ["mcp:read"], "grant": "authorization_code", "redirectUri": "http://localhost:8080/oauth/callback",
 *           "privateKey": "${PEM}", "signingAlgorithm": "ES256", "authorizationServers": ["https://as.example"],
 *           "idpTokenEndpoint": "https://idp.example/token", "idpClientId": "...", "idpClientSecret": "..."}
 * }</pre>
 * Holds secrets: never log it.
 */
public final class OAuthOptions {

  /** The OAuth grant used to obtain tokens. */
  public enum Grant {
    /** A person authorizes in a browser (authorization code with PKCE). */
    AUTHORIZATION_CODE,
    /** Machine to machine: the client's own credentials. */
    CLIENT_CREDENTIALS,
    /**
     * Enterprise-managed (SEP-990, cross-app access): the person's ID token from the
     * enterprise IdP is exchanged there for an identity assertion grant (ID-JAG), which the
     * authorization server's {@code jwt-bearer} grant turns into an access token.
     */
    IDENTITY_ASSERTION
  }

  private String clientId;
  private String clientSecret;
  private String clientMetadataUrl;
  private List<String> scopes = new ArrayList<>();
  private Grant grant = Grant.AUTHORIZATION_CODE;
  private String redirectUri;
  private String privateKey;
  private String signingAlgorithm;
  private List<String> authorizationServers = new ArrayList<>();
  private String idpTokenEndpoint;
  private String idpClientId;
  private String idpClientSecret;

  /** Empty options: everything discovered. */
  public OAuthOptions() {
  }

  /**
   * Reads the {@code oauth} object.
   *
   * @throws ConfigException naming the server and the field
   */
  public OAuthOptions(JsonFields f) {
    clientId = f.string("clientId");
    clientSecret = f.string("clientSecret");
    clientMetadataUrl = f.string("clientMetadataUrl");
    List<String> s = f.stringList("scopes");
    scopes = s == null ? new ArrayList<>() : new ArrayList<>(s);
    String g = f.string("grant");
    if (g != null) {
      switch (g) {
        case "authorization_code" -> grant = Grant.AUTHORIZATION_CODE;
        case "client_credentials" -> grant = Grant.CLIENT_CREDENTIALS;
        case "identity_assertion" -> grant = Grant.IDENTITY_ASSERTION;
        default -> throw f.error("grant", "must be authorization_code, client_credentials or identity_assertion (was '"
          + g + "')");
      }
    }
    redirectUri = f.string("redirectUri");
    privateKey = f.string("privateKey");
    signingAlgorithm = f.string("signingAlgorithm");
    List<String> as = f.stringList("authorizationServers");
    authorizationServers = as == null ? new ArrayList<>() : new ArrayList<>(as);
    idpTokenEndpoint = f.string("idpTokenEndpoint");
    idpClientId = f.string("idpClientId");
    idpClientSecret = f.string("idpClientSecret");
    // values with ${VAR} references are checked once expanded (see expand)
    validate(f::error, true);
  }

  /** Builds the error for a field. */
  private interface Errors {
    ConfigException error(String field, String problem);
  }

  private static boolean unexpanded(String v, boolean skipRefs) {
    return skipRefs && v != null && v.contains("${");
  }

  private void validate(Errors f, boolean skipRefs) {
    if (clientSecret != null && clientId == null) {
      throw f.error("clientSecret", "needs 'clientId'");
    }
    if (clientMetadataUrl != null && !unexpanded(clientMetadataUrl, skipRefs)) {
      URI u = uri(clientMetadataUrl);
      if (u == null || !"https".equalsIgnoreCase(u.getScheme()) || u.getRawPath() == null || u.getRawPath().length() < 2) {
        throw f.error("clientMetadataUrl", "must be an https:// URL with a path");
      }
    }
    if (redirectUri != null && !unexpanded(redirectUri, skipRefs)) {
      URI u = uri(redirectUri);
      if (u == null || u.getHost() == null || !("https".equalsIgnoreCase(u.getScheme())
        || "http".equalsIgnoreCase(u.getScheme()) && Urls.isLoopback(u.getHost()))) {
        throw f.error("redirectUri", "must be an https:// URL or an http:// URL on localhost");
      }
    }
    if (grant == Grant.CLIENT_CREDENTIALS && (clientId == null || clientSecret == null && privateKey == null)) {
      throw f.error("grant", "client_credentials needs 'clientId' and 'clientSecret' or 'privateKey'");
    }
    if (grant == Grant.IDENTITY_ASSERTION && (clientId == null || idpTokenEndpoint == null || idpClientId == null)) {
      throw f.error("grant", "identity_assertion needs 'clientId', 'idpTokenEndpoint' and 'idpClientId'");
    }
    if (idpTokenEndpoint != null && !unexpanded(idpTokenEndpoint, skipRefs)) {
      URI u = Urls.parseHttp(idpTokenEndpoint);
      if (u == null || !Urls.secureOrLoopback(u)) {
        throw f.error("idpTokenEndpoint", "must be an https:// URL (or http:// on localhost)");
      }
    }
    if (signingAlgorithm != null && !List.of("ES256", "RS256").contains(signingAlgorithm.toUpperCase(Locale.ROOT))) {
      throw f.error("signingAlgorithm", "must be ES256 or RS256");
    }
    for (String s : scopes) {
      if (s.isBlank() || s.contains(" ")) {
        throw f.error("scopes", "must hold scope tokens without spaces");
      }
    }
  }

  private static URI uri(String s) {
    try {
      return URI.create(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** @return a copy with {@code ${VAR}} references expanded in the string fields */
  public OAuthOptions expand(EnvExpander expander, String owner) {
    OAuthOptions o = new OAuthOptions(this);
    o.clientId = expander.expand(clientId, owner + ": oauth.clientId");
    o.clientSecret = expander.expand(clientSecret, owner + ": oauth.clientSecret");
    o.clientMetadataUrl = expander.expand(clientMetadataUrl, owner + ": oauth.clientMetadataUrl");
    o.redirectUri = expander.expand(redirectUri, owner + ": oauth.redirectUri");
    o.privateKey = expander.expand(privateKey, owner + ": oauth.privateKey");
    o.idpTokenEndpoint = expander.expand(idpTokenEndpoint, owner + ": oauth.idpTokenEndpoint");
    o.idpClientId = expander.expand(idpClientId, owner + ": oauth.idpClientId");
    o.idpClientSecret = expander.expand(idpClientSecret, owner + ": oauth.idpClientSecret");
    o.validate((field, problem) -> new ConfigException(owner + ": field 'oauth." + field + "' " + problem), false);
    return o;
  }

  /** A copy. */
  public OAuthOptions(OAuthOptions other) {
    this.clientId = other.clientId;
    this.clientSecret = other.clientSecret;
    this.clientMetadataUrl = other.clientMetadataUrl;
    this.scopes = new ArrayList<>(other.scopes);
    this.grant = other.grant;
    this.redirectUri = other.redirectUri;
    this.privateKey = other.privateKey;
    this.signingAlgorithm = other.signingAlgorithm;
    this.authorizationServers = new ArrayList<>(other.authorizationServers);
    this.idpTokenEndpoint = other.idpTokenEndpoint;
    this.idpClientId = other.idpClientId;
    this.idpClientSecret = other.idpClientSecret;
  }

  /** @return the entry shape (holds secrets: never log it) */
  public JsonObject toJson() {
    JsonObject j = new JsonObject()
      .put("grant", switch (grant) {
        case AUTHORIZATION_CODE -> "authorization_code";
        case CLIENT_CREDENTIALS -> "client_credentials";
        case IDENTITY_ASSERTION -> "identity_assertion";
      })
      .put("scopes", new JsonArray(new ArrayList<>(scopes)))
      .put("authorizationServers", new JsonArray(new ArrayList<>(authorizationServers)));
    putIf(j, "clientId", clientId);
    putIf(j, "clientSecret", clientSecret);
    putIf(j, "clientMetadataUrl", clientMetadataUrl);
    putIf(j, "redirectUri", redirectUri);
    putIf(j, "privateKey", privateKey);
    putIf(j, "signingAlgorithm", signingAlgorithm);
    putIf(j, "idpTokenEndpoint", idpTokenEndpoint);
    putIf(j, "idpClientId", idpClientId);
    putIf(j, "idpClientSecret", idpClientSecret);
    return j;
  }

  private static void putIf(JsonObject j, String k, String v) {
    if (v != null) {
      j.put(k, v);
    }
  }

  /** @return the pre-registered client id, or {@code null} */
  public String getClientId() {
    return clientId;
  }

  /** Sets the pre-registered client id. */
  public OAuthOptions setClientId(String clientId) {
    this.clientId = clientId;
    return this;
  }

  /** @return the pre-registered client secret, or {@code null} (a secret: never log it) */
  public String getClientSecret() {
    return clientSecret;
  }

  /** Sets the pre-registered client secret. */
  public OAuthOptions setClientSecret(String clientSecret) {
    this.clientSecret = clientSecret;
    return this;
  }

  /** @return the HTTPS URL of this client's Client ID Metadata Document, or {@code null} */
  public String getClientMetadataUrl() {
    return clientMetadataUrl;
  }

  /** Sets the Client ID Metadata Document URL (used when the AS supports it). */
  public OAuthOptions setClientMetadataUrl(String clientMetadataUrl) {
    this.clientMetadataUrl = clientMetadataUrl;
    return this;
  }

  /** @return scopes to request when the server's challenge names none (empty: the PRM's) */
  public List<String> getScopes() {
    return scopes;
  }

  /** Sets the scopes to request when the challenge names none. */
  public OAuthOptions setScopes(List<String> scopes) {
    this.scopes = new ArrayList<>(scopes);
    return this;
  }

  /** @return the grant */
  public Grant getGrant() {
    return grant;
  }

  /** Sets the grant. */
  public OAuthOptions setGrant(Grant grant) {
    this.grant = grant;
    return this;
  }

  /** @return the redirect URI, or {@code null} for the {@link OAuthManager}'s default */
  public String getRedirectUri() {
    return redirectUri;
  }

  /** Sets the redirect URI. */
  public OAuthOptions setRedirectUri(String redirectUri) {
    this.redirectUri = redirectUri;
    return this;
  }

  /** @return a PKCS#8 PEM private key for {@code private_key_jwt}, or {@code null} (a secret) */
  public String getPrivateKey() {
    return privateKey;
  }

  /** Sets the PKCS#8 PEM private key for {@code private_key_jwt}. */
  public OAuthOptions setPrivateKey(String privateKey) {
    this.privateKey = privateKey;
    return this;
  }

  /** @return ES256 or RS256, or {@code null} to follow the key type */
  public String getSigningAlgorithm() {
    return signingAlgorithm;
  }

  /** Sets the JWT signing algorithm. */
  public OAuthOptions setSigningAlgorithm(String signingAlgorithm) {
    this.signingAlgorithm = signingAlgorithm;
    return this;
  }

  /** @return issuer URLs the server may send us to (empty: any https one, or any loopback one) */
  public List<String> getAuthorizationServers() {
    return authorizationServers;
  }

  /** Restricts the authorization servers the MCP server may name. */
  public OAuthOptions setAuthorizationServers(List<String> authorizationServers) {
    this.authorizationServers = new ArrayList<>(authorizationServers);
    return this;
  }

  /** @return the enterprise IdP's token endpoint (token exchange), for {@code identity_assertion} */
  public String getIdpTokenEndpoint() {
    return idpTokenEndpoint;
  }

  /** Sets the enterprise IdP's token endpoint. */
  public OAuthOptions setIdpTokenEndpoint(String idpTokenEndpoint) {
    this.idpTokenEndpoint = idpTokenEndpoint;
    return this;
  }

  /** @return this client's id at the enterprise IdP */
  public String getIdpClientId() {
    return idpClientId;
  }

  /** Sets this client's id at the enterprise IdP. */
  public OAuthOptions setIdpClientId(String idpClientId) {
    this.idpClientId = idpClientId;
    return this;
  }

  /** @return this client's secret at the enterprise IdP, or {@code null} (a secret) */
  public String getIdpClientSecret() {
    return idpClientSecret;
  }

  /** Sets this client's secret at the enterprise IdP. */
  public OAuthOptions setIdpClientSecret(String idpClientSecret) {
    this.idpClientSecret = idpClientSecret;
    return this;
  }
}
