package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.UrlRedaction;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a server's authorization server: protected-resource metadata (RFC 9728) from the
 * challenge's {@code resource_metadata}, else the well-known URLs (path-specific, then
 * root); then the authorization server's metadata (RFC 8414, OpenID Connect discovery, with
 * path insertion), checking its {@code issuer}. A server without protected-resource metadata
 * is treated as 2025-03-26: metadata at its origin, else {@code /authorize}, {@code /token}
 * and {@code /register} there.
 */
final class Discovery {

  private static final Logger LOG = LoggerFactory.getLogger(Discovery.class);

  private final AuthHttp http;
  private final String who;
  private final URI server;
  private final OAuthOptions options;

  Discovery(AuthHttp http, String who, URI server, OAuthOptions options) {
    this.http = http;
    this.who = who;
    this.server = server;
    this.options = options;
  }

  Future<AuthServer> discover(BearerChallenge challenge) {
    List<String> prmUrls = new ArrayList<>();
    if (challenge.resourceMetadata() != null) {
      URI u = Urls.parseHttp(challenge.resourceMetadata());
      if (u == null || !allowed(u)) {
        return Future.failedFuture(fail("the challenge's resource_metadata is not an https URL"));
      }
      prmUrls.add(u.toString());
    }
    // the well-known locations also when the challenge's URL has nothing
    Urls.resourceMetadataCandidates(server).stream().filter(c -> !prmUrls.contains(c)).forEach(prmUrls::add);
    return firstJson(prmUrls.iterator(), this::isResourceMetadata).compose(prm -> prm == null ? legacy() : fromPrm(prm));
  }

  private boolean isResourceMetadata(JsonObject j) {
    return j.getValue("authorization_servers") instanceof JsonArray a && !a.isEmpty();
  }

  private Future<AuthServer> fromPrm(JsonObject prm) {
    String resource = Urls.canonicalResource(server);
    if (prm.getValue("resource") != null) {
      URI r = prm.getValue("resource") instanceof String s ? Urls.parseHttp(s) : null;
      if (r == null || !Urls.resourceCovers(r, server)) {
        return Future.failedFuture(fail("its protected resource metadata names the resource "
          + (r == null ? "(not a URL)" : UrlRedaction.redact(r.toString())) + ", which does not match the server URL "
          + UrlRedaction.redact(server.toString()) + "; not authorizing"));
      }
      resource = Urls.canonicalResource(r);
    }
    Object first = prm.getJsonArray("authorization_servers").getValue(0);
    URI issuer = first instanceof String s ? Urls.parseHttp(s) : null;
    if (issuer == null || !allowed(issuer) || issuer.getRawQuery() != null || issuer.getRawFragment() != null) {
      return Future.failedFuture(fail("its protected resource metadata names an authorization server that is not an"
        + " https URL"));
    }
    String iss = Urls.trimSlash(issuer.toString());
    if (!options.getAuthorizationServers().isEmpty()
      && options.getAuthorizationServers().stream().map(Urls::trimSlash).noneMatch(iss::equals)) {
      return Future.failedFuture(fail("the authorization server " + UrlRedaction.redact(iss)
        + " is not one of this server's 'oauth.authorizationServers'"));
    }
    List<String> scopes = new ArrayList<>();
    if (prm.getValue("scopes_supported") instanceof JsonArray a) {
      a.forEach(o -> {
        if (o instanceof String s) {
          scopes.add(s);
        }
      });
    }
    String res = resource;
    return firstJson(Urls.authServerMetadataCandidates(issuer).iterator(), j -> true).compose(md -> {
      if (md == null) {
        return Future.failedFuture(fail("no authorization server metadata found for " + UrlRedaction.redact(iss)));
      }
      if (!(md.getValue("issuer") instanceof String mi) || !Urls.trimSlash(mi).equals(iss)) {
        return Future.failedFuture(fail("the authorization server metadata's issuer does not match "
          + UrlRedaction.redact(iss) + " (RFC 8414 section 3.3); not using it"));
      }
      return checked(new AuthServer(iss, md, res, List.copyOf(scopes), false));
    });
  }

  private Future<AuthServer> legacy() {
    String origin = Urls.origin(server);
    LOG.debug("[{}] no protected resource metadata; trying 2025-03-26 discovery at {}", who, origin);
    return firstJson(List.of(origin + "/.well-known/oauth-authorization-server").iterator(), j -> true).compose(md -> {
      JsonObject m = md != null ? md : new JsonObject()
        .put("authorization_endpoint", origin + "/authorize")
        .put("token_endpoint", origin + "/token")
        .put("registration_endpoint", origin + "/register");
      String issuer = m.getValue("issuer") instanceof String s ? Urls.trimSlash(s) : origin;
      return checked(new AuthServer(issuer, m, Urls.canonicalResource(server), List.of(), true));
    });
  }

  private Future<AuthServer> checked(AuthServer as) {
    for (String field : List.of("authorization_endpoint", "token_endpoint", "registration_endpoint")) {
      Object v = as.metadata().getValue(field);
      if (v == null && !field.equals("registration_endpoint")
        && !(field.equals("authorization_endpoint") && options.getGrant() != OAuthOptions.Grant.AUTHORIZATION_CODE)) {
        return Future.failedFuture(fail("the authorization server metadata has no " + field));
      }
      if (v != null) {
        URI u = v instanceof String s ? Urls.parseHttp(s) : null;
        if (u == null || !allowed(u)) {
          return Future.failedFuture(fail("the authorization server's " + field + " is not an https URL"));
        }
      }
    }
    if (!as.legacy() && options.getGrant() == OAuthOptions.Grant.AUTHORIZATION_CODE
      && !as.strings("code_challenge_methods_supported").contains("S256")) {
      return Future.failedFuture(fail("the authorization server does not list S256 in code_challenge_methods_supported;"
        + " PKCE is required"));
    }
    return Future.succeededFuture(as);
  }

  /** GETs each URL in turn; the first 2xx JSON object that {@code accept}s wins, {@code null} when none does. */
  private Future<JsonObject> firstJson(Iterator<String> urls, java.util.function.Predicate<JsonObject> accept) {
    if (!urls.hasNext()) {
      return Future.succeededFuture(null);
    }
    String url = urls.next();
    return http.get(url, who).compose(r -> {
      if (r.ok() && r.json() != null && accept.test(r.json())) {
        return Future.succeededFuture(r.json());
      }
      LOG.debug("[{}] no metadata at {} (HTTP {})", who, UrlRedaction.redact(url), r.status());
      return firstJson(urls, accept);
    });
  }

  /**
   * Where discovery may lead: https, or http on a loopback host when the MCP server itself is
   * on one (a remote server cannot point us at services on this machine).
   */
  private boolean allowed(URI u) {
    return "https".equalsIgnoreCase(u.getScheme()) || Urls.isLoopback(u.getHost()) && Urls.isLoopback(server.getHost());
  }

  private McpException fail(String what) {
    return new McpException(Kind.AUTHORIZATION_FAILED, who + ": " + what);
  }
}
