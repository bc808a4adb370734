package io.agentbus.http;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.mcp.auth.OAuthManager;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * OAuth for people: {@code GET /v1/mcp/{server}/authorize} gives the caller's tenant the URL to
 * authorize an MCP server with, and {@code GET /oauth/callback} is where the authorization
 * server sends the person back. The callback needs no bearer token (a browser follows a
 * redirect): the {@code state} it carries is the proof, checked by the server's OAuth client,
 * and it names the server it belongs to. Both go to the server's verticle on the bus, so the
 * tokens land where its connections are.
 */
final class OAuthRoutes {

  /** The callback path, on the API's own origin. */
  static final String CALLBACK_PATH = "/oauth/callback";

  private final BusRequests bus;
  private final Responses responses;

  OAuthRoutes(BusRequests bus, Responses responses) {
    this.bus = bus;
    this.responses = responses;
  }

  /** @return the callback URL on the origin the request came to */
  static String callbackUrl(RoutingContext ctx) {
    return ctx.request().scheme() + "://" + ctx.request().authority() + CALLBACK_PATH;
  }

  /** {@code GET /v1/mcp/{server}/authorize} → {@code {server, tenant?, url}}. */
  void authorize(RoutingContext ctx) {
    String server = ctx.pathParam("server");
    String tenant = ctx.get(BearerAuth.TENANT);
    JsonObject body = new JsonObject().put("redirectUri", callbackUrl(ctx));
    if (tenant != null) {
      body.put("tenant", tenant);
    }
    bus.request(Addresses.mcp(server), Actions.OAUTH_AUTHORIZE, body, BusRequests.SHORT_TIMEOUT_MS)
      .onSuccess(reply -> responses.json(ctx, 200, reply))
      .onFailure(err -> responses.error(ctx, ApiError.fromBus(err, "MCP server '" + server + "'")));
  }

  /** {@code GET /oauth/callback?code&state&iss} → a small page saying whether it worked. */
  void callback(RoutingContext ctx) {
    String state = ctx.queryParams().get("state");
    String server = OAuthManager.serverOf(state);
    if (server == null) {
      page(ctx, 400, "Authorization failed", "This link carries no authorization of Agentbus (its state is "
        + (state == null ? "missing" : "unknown") + "). Start again from the application.");
      return;
    }
    JsonObject body = new JsonObject();
    for (String field : new String[] {"code", "state", "iss", "error", "error_description"}) {
      String value = ctx.queryParams().get(field);
      if (value != null) {
        body.put(field, value);
      }
    }
    bus.request(Addresses.mcp(server), Actions.OAUTH_CALLBACK, body, BusRequests.SHORT_TIMEOUT_MS)
      .onSuccess(reply -> page(ctx, 200, "Authorized", "Agentbus may now use server '" + server + "'"
        + (reply.getString("tenant") == null ? "" : " for '" + reply.getString("tenant") + "'")
        + ". You can close this window and send your message again."))
      .onFailure(err -> {
        ApiError e = ApiError.fromBus(err, "MCP server '" + server + "'");
        page(ctx, e.status(), "Authorization failed", e.getMessage());
      });
  }

  private static void page(RoutingContext ctx, int status, String title, String text) {
    if (ctx.response().ended() || ctx.response().closed()) {
      return;
    }
    String html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
      + "</title></head><body style=\"font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto\"><h1>"
      + escape(title) + "</h1><p>" + escape(text) + "</p></body></html>";
    ctx.response().setStatusCode(status)
      .putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
      .putHeader(HttpHeaders.CACHE_CONTROL, "no-store")
      .putHeader("Referrer-Policy", "no-referrer")
      .end(html);
  }

  private static String escape(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '&' -> sb.append("&amp;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }
}
