package io.agentbus.testing;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A Streamable HTTP MCP server whose one tool, {@code whoami}, answers with the person its
 * bearer token was issued to, and the OAuth authorization server that issues those tokens:
 * dynamic registration, PKCE (S256, checked), {@code resource} required, {@code iss} in the
 * redirect. Its {@code /authorize} approves at once as the person named by the {@code login}
 * query parameter the test adds, as a person signing in would. Handshake and
 * {@code tools/list} need no token (as on servers that let a client discover them), a
 * {@code tools/call} does: without a valid one it gets 401 with the protected-resource
 * metadata's URL. Every call is recorded with its session and token.
 */
public final class OAuthWhoAmIServer {

  /** One {@code tools/call} the MCP server saw. */
  public record Call(String session, String token, String user) {
  }

  /** The calls seen, in order. */
  public final List<Call> calls = new CopyOnWriteArrayList<>();

  private final Map<String, String> userByToken = new ConcurrentHashMap<>();
  private final Map<String, String[]> grantByCode = new ConcurrentHashMap<>();
  private HttpServer mcp;
  private HttpServer as;

  /** Starts both servers on 127.0.0.1, port 0 each. */
  public static Future<OAuthWhoAmIServer> start(Vertx vertx) {
    OAuthWhoAmIServer s = new OAuthWhoAmIServer();
    return vertx.createHttpServer().requestHandler(s::mcp).listen(0, "127.0.0.1").compose(m -> {
      s.mcp = m;
      return vertx.createHttpServer().requestHandler(s::as).listen(0, "127.0.0.1");
    }).map(a -> {
      s.as = a;
      return s;
    });
  }

  /** @return the MCP endpoint */
  public String mcpUrl() {
    return "http://127.0.0.1:" + mcp.actualPort() + "/mcp";
  }

  private String asUrl() {
    return "http://127.0.0.1:" + as.actualPort();
  }

  private String prmUrl() {
    return "http://127.0.0.1:" + mcp.actualPort() + "/.well-known/oauth-protected-resource/mcp";
  }

  /** @return the tokens issued so far, each with its person */
  public Map<String, String> issued() {
    return Map.copyOf(userByToken);
  }

  public Future<Void> close() {
    return Future.join(mcp.close(), as.close()).mapEmpty();
  }

  private void mcp(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      if (req.path().equals("/.well-known/oauth-protected-resource/mcp")) {
        json(req, 200, new JsonObject().put("resource", mcpUrl()).put("authorization_servers", new JsonArray().add(asUrl())));
        return;
      }
      if (!req.path().equals("/mcp")) {
        json(req, 404, new JsonObject().put("error", "not_found"));
        return;
      }
      switch (req.method().name()) {
        case "DELETE" -> req.response().setStatusCode(200).end();
        case "POST" -> post(req, new JsonObject(body));
        default -> req.response().setStatusCode(405).end();
      }
    });
  }

  private void post(HttpServerRequest req, JsonObject msg) {
    String method = msg.getString("method");
    if (!msg.containsKey("id")) {
      req.response().setStatusCode(202).end();
      return;
    }
    String session = req.getHeader("Mcp-Session-Id");
    JsonObject result;
    switch (method) {
      case "initialize" -> {
        session = UUID.randomUUID().toString();
        req.response().putHeader("Mcp-Session-Id", session);
        result = new JsonObject().put("protocolVersion", "2025-11-25")
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "oauth-whoami").put("version", "1"));
      }
      case "tools/list" -> result = new JsonObject().put("tools", new JsonArray().add(new JsonObject().put("name", "whoami")
        .put("description", "Tell who the signed-in user is").put("inputSchema", new JsonObject().put("type", "object"))));
      case "tools/call" -> {
        String auth = req.getHeader("Authorization");
        String token = auth != null && auth.startsWith("Bearer ") ? auth.substring(7) : null;
        String user = token == null ? null : userByToken.get(token);
        if (user == null) {
          req.response().putHeader("WWW-Authenticate", "Bearer resource_metadata=\"" + prmUrl() + "\"");
          json(req, 401, new JsonObject().put("error", "invalid_token"));
          return;
        }
        calls.add(new Call(session, token, user));
        result = new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", "user=" + user)));
      }
      default -> result = new JsonObject();
    }
    json(req, 200, new JsonObject().put("jsonrpc", "2.0").put("id", msg.getValue("id")).put("result", result));
  }

  private void as(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      switch (req.path()) {
        case "/.well-known/oauth-authorization-server" -> json(req, 200, new JsonObject()
          .put("issuer", asUrl())
          .put("authorization_endpoint", asUrl() + "/authorize")
          .put("token_endpoint", asUrl() + "/token")
          .put("registration_endpoint", asUrl() + "/register")
          .put("code_challenge_methods_supported", new JsonArray().add("S256"))
          .put("token_endpoint_auth_methods_supported", new JsonArray().add("none"))
          .put("authorization_response_iss_parameter_supported", true));
        case "/register" -> json(req, 201, new JsonObject().put("client_id", "client-" + UUID.randomUUID())
          .put("token_endpoint_auth_method", "none"));
        case "/authorize" -> authorize(req);
        case "/token" -> token(req, FormBody.parse(body));
        default -> json(req, 404, new JsonObject().put("error", "not_found"));
      }
    });
  }

  private void authorize(HttpServerRequest req) {
    String login = req.getParam("login");
    String challenge = req.getParam("code_challenge");
    if (login == null || challenge == null || !"S256".equals(req.getParam("code_challenge_method"))
      || !mcpUrl().equals(req.getParam("resource"))) {
      json(req, 400, new JsonObject().put("error", "invalid_request"));
      return;
    }
    String code = "code-" + UUID.randomUUID();
    grantByCode.put(code, new String[] {login, challenge});
    String location = req.getParam("redirect_uri") + "?code=" + code + "&state=" + req.getParam("state") + "&iss=" + asUrl();
    req.response().setStatusCode(302).putHeader("Location", location).end();
  }

  private void token(HttpServerRequest req, MultiMap form) {
    String[] grant = "authorization_code".equals(form.get("grant_type")) ? grantByCode.remove(String.valueOf(form.get("code"))) : null;
    if (grant == null || form.get("code_verifier") == null || !grant[1].equals(s256(form.get("code_verifier")))) {
      json(req, 400, new JsonObject().put("error", "invalid_grant"));
      return;
    }
    String token = "at-" + UUID.randomUUID();
    userByToken.put(token, grant[0]);
    json(req, 200, new JsonObject().put("access_token", token).put("token_type", "Bearer").put("expires_in", 3600));
  }

  private static String s256(String verifier) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
