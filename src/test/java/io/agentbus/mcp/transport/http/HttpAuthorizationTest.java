package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A server that wants credentials says so, and the error tells how to supply them. */
@ExtendWith(VertxExtension.class)
class HttpAuthorizationTest {

  private static final String TOKEN = "sk-secret-7f3a9c2e1b";
  private static final String CHALLENGE = "Bearer realm=\"agentbus-test\", error=\"invalid_token\", "
    + "resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource?sig=zz91\"";

  /** Answers every request 401, with {@code challenge} as WWW-Authenticate when not null. */
  private static Future<HttpServer> guarded(Vertx vertx, String challenge) {
    return vertx.createHttpServer().requestHandler(req -> {
      if (challenge != null) {
        req.response().putHeader("WWW-Authenticate", challenge);
      }
      req.response().setStatusCode(401).putHeader("Content-Type", "application/json")
        .end("{\"error\":\"invalid_token\",\"error_description\":\"no valid token in " + req.getHeader("Authorization") + "\"}");
    }).listen(0, "127.0.0.1");
  }

  private static Future<McpException> connectFailure(Vertx vertx, HttpServer server, Transport transport,
                                                     Map<String, String> headers) {
    McpServerOptions o = new McpServerOptions().setName("locked").setUrl("http://127.0.0.1:" + server.actualPort() + "/mcp")
      .setTransport(transport).setHeaders(headers).setConnectTimeoutMs(5_000).setTimeoutMs(5_000);
    McpClient client = McpClient.create(vertx, o);
    return client.connect().<McpException>transform(ar -> ar.succeeded()
        ? Future.failedFuture(new AssertionError("connected to a server that answers 401"))
        : Future.succeededFuture(assertInstanceOf(McpException.class, ar.cause())))
      .eventually(client::close).eventually(server::close);
  }

  @Test
  void withoutCredentialsTheErrorSaysHowToSupplyThem(Vertx vertx, VertxTestContext ctx) {
    guarded(vertx, CHALLENGE).compose(s -> connectFailure(vertx, s, Transport.HTTP, Map.of()))
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        String m = e.getMessage();
        assertEquals(Kind.TRANSPORT, e.kind());
        assertTrue(m.contains("HTTP 401"), m);
        assertTrue(m.contains("asks for authorization"), m);
        assertTrue(m.contains("WWW-Authenticate: Bearer realm=\"agentbus-test\", error=\"invalid_token\""), m);
        assertTrue(m.contains("\"headers\": {\"Authorization\": \"Bearer ${TOKEN}\"}"), m);
        assertTrue(m.contains("mcp.json"), m);
        assertFalse(m.contains("sig=zz91"), "only scheme, realm, error and scope are shown: " + m);
        ctx.completeNow();
      })));
  }

  @Test
  void aRejectedTokenIsNamedButNeverShown(Vertx vertx, VertxTestContext ctx) {
    guarded(vertx, CHALLENGE).compose(s -> connectFailure(vertx, s, Transport.HTTP, Map.of("Authorization", "Bearer " + TOKEN)))
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        String m = e.getMessage();
        assertTrue(m.contains("HTTP 401"), m);
        assertTrue(m.contains("Authorization header was not accepted"), m);
        assertTrue(m.contains("invalid_token"), m);
        assertFalse(m.contains(TOKEN), m);
        assertFalse(m.contains(TOKEN.substring(3)), m);
        ctx.completeNow();
      })));
  }

  @Test
  void theAutomaticTransportDoesNotFallBackOn401(Vertx vertx, VertxTestContext ctx) {
    guarded(vertx, null).compose(s -> connectFailure(vertx, s, Transport.AUTO_HTTP, Map.of()))
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        String m = e.getMessage();
        assertTrue(m.contains("HTTP 401") && m.contains("asks for authorization"), m);
        assertFalse(m.contains("legacy"), m);
        assertFalse(m.contains("WWW-Authenticate"), "no challenge was sent: " + m);
        ctx.completeNow();
      })));
  }

  @Test
  void theLegacySseTransportGivesTheSameHint(Vertx vertx, VertxTestContext ctx) {
    guarded(vertx, "Basic realm=\"legacy\"").compose(s -> connectFailure(vertx, s, Transport.SSE, Map.of()))
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        String m = e.getMessage();
        assertTrue(m.contains("HTTP 401") && m.contains("WWW-Authenticate: Basic realm=\"legacy\""), m);
        assertTrue(m.contains("\"Authorization\": \"Bearer ${TOKEN}\""), m);
        ctx.completeNow();
      })));
  }
}
