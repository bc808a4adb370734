package io.agentbus.mcp.auth;

import io.agentbus.testing.FormBody;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A protected MCP server and its authorization server, each on its own port 0 (so on two
 * origins), with knobs for the ways an authorization can go wrong, and a record of every
 * request each one saw (to prove where tokens went).
 */
final class OAuthTestServers {

  /** One request a server saw. */
  record Seen(String server, String method, String path, String authorization, String body) {
    boolean carries(String secret) {
      return secret != null && ((authorization != null && authorization.contains(secret)) || body.contains(secret)
        || path.contains(secret));
    }
  }

  final List<Seen> seen = new CopyOnWriteArrayList<>();
  final Set<String> validTokens = ConcurrentHashMap.newKeySet();
  final Set<String> validRefreshTokens = ConcurrentHashMap.newKeySet();
  final AtomicInteger tokenCounter = new AtomicInteger();
  /** Where the protected-resource metadata is (the challenge names it). */
  volatile String prmPath = "/.well-known/oauth-protected-resource/mcp";
  /** {@code resource} of the protected-resource metadata; {@code null}: the MCP URL. */
  volatile String prmResource;
  /** {@code issuer} of the AS metadata; {@code null}: the AS URL. */
  volatile String issuer;
  /** The authorization server the PRM names; {@code null}: this one. */
  volatile String prmAuthorizationServer;
  /** Whether the metadata promises {@code iss} in authorization responses. */
  volatile boolean promisesIss = true;
  /** {@code iss} put in the redirect; {@code null}: the issuer; "" for none. */
  volatile String redirectIss;
  /** {@code state} put in the redirect; {@code null}: the request's; "" for none. */
  volatile String redirectState;
  /** {@code expires_in} of issued access tokens. */
  volatile int expiresIn = 3600;
  /** Whether the AS metadata is a body far over any limit. */
  volatile boolean hugeMetadata;
  /** Whether the AS never answers its metadata request. */
  volatile boolean stallMetadata;
  /** Whether the MCP server answers tools/call with a 500 that echoes the Authorization header. */
  volatile boolean echoTokenOnCall;
  /** Whether the MCP server takes the tokens the AS issues. */
  volatile boolean acceptTokens = true;
  /** Whether refresh tokens are refused with {@code invalid_grant}. */
  volatile boolean refreshRevoked;
  /** Whether a refresh token works once: a refresh revokes the one it used (rotation). */
  volatile boolean rotateRefreshTokens;

  private HttpServer mcp;
  private HttpServer as;

  Future<OAuthTestServers> start(Vertx vertx) {
    return vertx.createHttpServer().requestHandler(this::mcp).listen(0, "127.0.0.1").compose(m -> {
      mcp = m;
      return vertx.createHttpServer().requestHandler(this::as).listen(0, "127.0.0.1");
    }).map(a -> {
      as = a;
      return this;
    });
  }

  String mcpUrl() {
    return "http://127.0.0.1:" + mcp.actualPort() + "/mcp";
  }

  String asUrl() {
    return "http://127.0.0.1:" + as.actualPort();
  }

  Future<Void> close() {
    return Future.join(mcp.close(), as.close()).mapEmpty();
  }

  long count(String server, String path) {
    return seen.stream().filter(s -> s.server().equals(server) && s.path().startsWith(path)).count();
  }

  private void mcp(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      List<String> authorizations = req.headers().getAll("Authorization");
      seen.add(new Seen("mcp", req.method().name(), req.uri(), authorizations.isEmpty() ? null
        : String.join(" | ", authorizations), body.toString()));
      if (req.path().equals(prmPath)) {
        json(req, 200, new JsonObject().put("resource", prmResource != null ? prmResource : mcpUrl())
          .put("authorization_servers", new JsonArray().add(prmAuthorizationServer != null ? prmAuthorizationServer : asUrl())));
        return;
      }
      if (!req.path().equals("/mcp")) {
        json(req, 404, new JsonObject().put("error", "not_found"));
        return;
      }
      String auth = authorizations.size() == 1 ? authorizations.get(0) : null;
      if (auth == null || !auth.startsWith("Bearer ") || !acceptTokens || !validTokens.contains(auth.substring(7))) {
        req.response().putHeader("WWW-Authenticate", "Bearer resource_metadata=\"http://127.0.0.1:" + mcp.actualPort()
          + prmPath + "\"");
        json(req, 401, new JsonObject().put("error", "invalid_token"));
        return;
      }
      if (!req.method().name().equals("POST")) {
        req.response().setStatusCode(405).end();
        return;
      }
      JsonObject msg = new JsonObject(body);
      String method = msg.getString("method");
      if (echoTokenOnCall && "tools/call".equals(method)) {
        req.response().setStatusCode(500).end("cannot serve " + auth + " today");
        return;
      }
      if (!msg.containsKey("id")) {
        req.response().setStatusCode(202).end();
        return;
      }
      JsonObject result = switch (method) {
        case "initialize" -> new JsonObject().put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "protected").put("version", "1"));
        case "tools/list" -> new JsonObject().put("tools", new JsonArray().add(new JsonObject().put("name", "echo")
          .put("inputSchema", new JsonObject().put("type", "object"))));
        case "tools/call" -> new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text")
          .put("text", "ok")));
        default -> new JsonObject();
      };
      json(req, 200, new JsonObject().put("jsonrpc", "2.0").put("id", msg.getValue("id")).put("result", result));
    });
  }

  private void as(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      seen.add(new Seen("as", req.method().name(), req.uri(), req.getHeader("Authorization"), body.toString()));
      String iss = issuer != null ? issuer : asUrl();
      switch (req.path()) {
        case "/.well-known/oauth-authorization-server" -> metadata(req, iss);
        case "/register" -> json(req, 201, new JsonObject().put("client_id", "registered-client")
          .put("token_endpoint_auth_method", "none"));
        case "/authorize" -> {
          String state = redirectState != null ? redirectState : req.getParam("state");
          String i = redirectIss != null ? redirectIss : iss;
          String location = req.getParam("redirect_uri") + "?code=the-code"
            + (state.isEmpty() ? "" : "&state=" + state) + (i.isEmpty() ? "" : "&iss=" + i);
          req.response().setStatusCode(302).putHeader("Location", location).end();
        }
        case "/token" -> token(req, FormBody.parse(body));
        default -> json(req, 404, new JsonObject().put("error", "not_found"));
      }
    });
  }

  private void metadata(HttpServerRequest req, String iss) {
    if (stallMetadata) {
      return;
    }
    if (hugeMetadata) {
      req.response().setChunked(true).putHeader("Content-Type", "application/json");
      req.response().write("{\"issuer\": \"" + iss + "\", \"x\": \"");
      req.response().end("y".repeat(2 * 1024 * 1024) + "\"}");
      return;
    }
    json(req, 200, new JsonObject()
          .put("issuer", iss)
          .put("authorization_endpoint", asUrl() + "/authorize")
          .put("token_endpoint", asUrl() + "/token")
          .put("registration_endpoint", asUrl() + "/register")
          .put("code_challenge_methods_supported", new JsonArray().add("S256"))
          .put("token_endpoint_auth_methods_supported", new JsonArray().add("none"))
          .put("authorization_response_iss_parameter_supported", promisesIss));
  }

  private void token(HttpServerRequest req, MultiMap form) {
    String grant = form.get("grant_type");
    if ("refresh_token".equals(grant) && (refreshRevoked || !validRefreshTokens.contains(form.get("refresh_token")))) {
      json(req, 400, new JsonObject().put("error", "invalid_grant")
        .put("error_description", "refresh token " + form.get("refresh_token") + " is revoked"));
      return;
    }
    if ("authorization_code".equals(grant) && !"the-code".equals(form.get("code"))) {
      json(req, 400, new JsonObject().put("error", "invalid_grant"));
      return;
    }
    if ("refresh_token".equals(grant) && rotateRefreshTokens) {
      validRefreshTokens.remove(form.get("refresh_token"));
    }
    int n = tokenCounter.incrementAndGet();
    String access = "at-secret-" + n + "-" + Long.toHexString(System.nanoTime());
    String refresh = "rt-secret-" + n + "-" + Long.toHexString(System.nanoTime());
    validTokens.add(access);
    validRefreshTokens.add(refresh);
    json(req, 200, new JsonObject().put("access_token", access).put("token_type", "Bearer").put("expires_in", expiresIn)
      .put("refresh_token", refresh));
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
