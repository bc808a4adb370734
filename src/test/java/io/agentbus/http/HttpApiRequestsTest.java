package io.agentbus.http;

import io.agentbus.testing.Integration;
import static io.agentbus.http.ApiFixture.ALICE;
import static io.agentbus.http.ApiFixture.BOB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Everything around the turns: auth and tenant isolation, every bad-input answer, /health,
 * /v1/tools, the chat page, tokens kept out of logs and error bodies, loopback-only without
 * tokens, and draining.
 */
@Integration
@ExtendWith(VertxExtension.class)
class HttpApiRequestsTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  static ApiFixture fx;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    ApiFixture.start(vertx).onComplete(ctx.succeeding(f -> {
      fx = f;
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    fx.close().onComplete(ctx.succeedingThenComplete());
  }

  static void assertError(HttpResponse<Buffer> r, int status, String type, String inMessage) {
    assertEquals(status, r.statusCode(), r.bodyAsString());
    assertTrue(r.getHeader("Content-Type").startsWith("application/json"), r.getHeader("Content-Type"));
    JsonObject error = r.bodyAsJsonObject().getJsonObject("error");
    assertEquals(type, error.getString("type"), r.bodyAsString());
    if (inMessage != null) {
      assertTrue(error.getString("message").contains(inMessage), r.bodyAsString());
    }
  }

  /** Runs the requests one after the other and collects the responses. */
  static Future<List<HttpResponse<Buffer>>> sequence(List<Supplier<Future<HttpResponse<Buffer>>>> requests) {
    List<HttpResponse<Buffer>> out = new ArrayList<>();
    Future<Void> chain = Future.succeededFuture();
    for (Supplier<Future<HttpResponse<Buffer>>> r : requests) {
      chain = chain.compose(v -> r.get().map(resp -> {
        out.add(resp);
        return null;
      }));
    }
    return chain.map(v -> out);
  }

  @Test
  void missingOrBadTokensAre401AndTenantsOnlySeeTheirOwnConversations(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> {
      String path = "/v1/conversations/" + id;
      return sequence(List.of(
        () -> fx.request(HttpMethod.GET, path, null).send(),
        () -> fx.request(HttpMethod.GET, path, "not-a-token").send(),
        () -> fx.web.get(fx.api.actualPort(), "127.0.0.1", path).putHeader("Authorization", "Basic YWxpY2U6eA==").send(),
        () -> fx.request(HttpMethod.GET, path, BOB).send(),
        () -> fx.send(fx.api, id, BOB, "hello from bob"),
        () -> fx.request(HttpMethod.DELETE, path, BOB).send(),
        () -> fx.request(HttpMethod.GET, path, ALICE).send()));
    }).onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
      assertError(rs.get(0), 401, "unauthorized", "Authorization");
      assertEquals("Bearer realm=\"agentbus\"", rs.get(0).getHeader("WWW-Authenticate"));
      assertError(rs.get(1), 401, "unauthorized", "invalid bearer token");
      assertEquals("Bearer realm=\"agentbus\"", rs.get(1).getHeader("WWW-Authenticate"));
      assertError(rs.get(2), 401, "unauthorized", "Bearer");
      assertError(rs.get(3), 404, "not_found", null);
      assertError(rs.get(4), 404, "not_found", null);
      assertError(rs.get(5), 404, "not_found", null);
      JsonObject c = rs.get(6).bodyAsJsonObject();
      assertEquals(200, rs.get(6).statusCode());
      assertEquals("alice", c.getString("tenant"));
      assertEquals(0, c.getJsonArray("messages").size());
      ctx.completeNow();
    })));
  }

  @Test
  void everyBadInputGetsAClearJsonErrorAndChangesNothing(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> {
      String messages = "/v1/conversations/" + id + "/messages";
      JsonArray toolResult = new JsonArray().add(new JsonObject().put("type", "tool_result").put("tool_use_id", "x"));
      String big = "{\"content\":\"" + "x".repeat((int) ApiFixture.MAX_BODY) + "\"}";
      return sequence(List.of(
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendBuffer(Buffer.buffer("{\"content\": ")),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendBuffer(Buffer.buffer("[1, 2]")),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendJsonObject(new JsonObject()),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendJsonObject(new JsonObject().put("content", 42)),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendJsonObject(new JsonObject().put("content", " ")),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendJsonObject(new JsonObject().put("content", toolResult)),
        () -> fx.request(HttpMethod.POST, "/v1/conversations", ALICE).sendJsonObject(new JsonObject().put("system", 5)),
        () -> fx.request(HttpMethod.POST, "/v1/conversations", ALICE).sendJsonObject(new JsonObject().put("tools", "echo")),
        () -> fx.request(HttpMethod.POST, messages, ALICE).sendBuffer(Buffer.buffer(big)),
        () -> fx.request(HttpMethod.GET, "/v1/conversations/c0-00000000000000000000000000000000", ALICE).send(),
        () -> fx.request(HttpMethod.POST, "/v1/conversations/nonsense/messages", ALICE)
          .sendJsonObject(new JsonObject().put("content", "hi")),
        () -> fx.request(HttpMethod.GET, "/v1/nothing-here", ALICE).send(),
        () -> fx.request(HttpMethod.GET, "/nothing-here", null).send(),
        () -> fx.request(HttpMethod.PUT, "/v1/tools", ALICE).send(),
        () -> fx.request(HttpMethod.DELETE, "/v1/conversations", ALICE).send(),
        () -> fx.request(HttpMethod.GET, "/v1/tools?provider=gemini", ALICE).send(),
        () -> fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send(),
        () -> fx.request(HttpMethod.GET, "/metrics", null).send()));
    }).onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
      assertError(rs.get(0), 400, "invalid_request", "not valid JSON");
      assertError(rs.get(1), 400, "invalid_request", "JSON object");
      assertError(rs.get(2), 400, "invalid_request", "'content'");
      assertError(rs.get(3), 400, "invalid_request", "'content'");
      assertError(rs.get(4), 400, "invalid_request", "'content'");
      assertError(rs.get(5), 400, "invalid_request", "tool_result");
      assertError(rs.get(6), 400, "invalid_request", "'system'");
      assertError(rs.get(7), 400, "invalid_request", "'tools'");
      assertError(rs.get(8), 413, "payload_too_large", String.valueOf(ApiFixture.MAX_BODY));
      assertError(rs.get(9), 404, "not_found", "c0-00000000000000000000000000000000");
      assertError(rs.get(10), 404, "not_found", "nonsense");
      assertError(rs.get(11), 404, "not_found", "/v1/nothing-here");
      assertError(rs.get(12), 404, "not_found", "/nothing-here");
      assertError(rs.get(13), 405, "method_not_allowed", "PUT");
      assertError(rs.get(14), 405, "method_not_allowed", "DELETE");
      assertError(rs.get(15), 400, "invalid_request", "'provider'");
      JsonObject c = rs.get(16).bodyAsJsonObject();
      assertEquals(0, c.getJsonArray("messages").size(), c::encode);
      assertEquals(0, c.getInteger("turns"));
      assertFalse(c.getBoolean("busy"));
      String metrics = rs.get(17).bodyAsString();
      for (String reason : List.of("invalid_request", "payload_too_large", "not_found", "method_not_allowed")) {
        assertTrue(metrics.contains("agentbus_http_rejected_total{reason=\"" + reason + "\"}"), reason);
      }
      ctx.completeNow();
    })));
  }

  @Test
  void healthReportsEachServerAndStays200WhenSomeAreNotReady(VertxTestContext ctx) {
    sequence(List.of(
      () -> fx.request(HttpMethod.GET, "/health", null).send(),
      () -> fx.request(HttpMethod.GET, fx.limited, "/health", null).send()))
      .onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
        assertEquals(200, rs.get(0).statusCode(), rs.get(0).bodyAsString());
        JsonObject up = rs.get(0).bodyAsJsonObject();
        assertEquals("UP", up.getString("status"));
        assertEquals("READY", up.getJsonObject("servers").getJsonObject("everything").getString("status"));
        // 14: with the roots and elicitation capabilities declared, server-everything adds get-roots-list and
        // trigger-elicitation-request to its 12
        assertEquals(14, up.getJsonObject("servers").getJsonObject("everything").getInteger("toolCount"));
        assertEquals(200, rs.get(1).statusCode(), "the instance serves: a server not ready only degrades it");
        JsonObject degraded = rs.get(1).bodyAsJsonObject();
        assertEquals("DEGRADED", degraded.getString("status"));
        assertEquals(new JsonArray().add("ghost"), degraded.getJsonArray("notReady"));
        assertFalse(degraded.getJsonObject("servers").getJsonObject("ghost").getBoolean("ready"));
        assertEquals("DOWN", degraded.getJsonObject("servers").getJsonObject("ghost").getString("status"));
        assertTrue(degraded.getJsonObject("servers").getJsonObject("ghost").getString("detail").contains("agentbus.mcp.ghost"));
        ctx.completeNow();
      })));
  }

  @Test
  void toolsListsTheCatalogInEachForm(VertxTestContext ctx) {
    sequence(List.of(
      () -> fx.request(HttpMethod.GET, "/v1/tools", ALICE).send(),
      () -> fx.request(HttpMethod.GET, "/v1/tools?provider=anthropic", ALICE).send(),
      () -> fx.request(HttpMethod.GET, "/v1/tools", null).send()))
      .onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
        assertEquals(200, rs.get(0).statusCode());
        JsonArray tools = rs.get(0).bodyAsJsonObject().getJsonArray("tools");
        JsonObject echo = tools.stream().map(JsonObject.class::cast)
          .filter(t -> ApiFixture.ECHO.equals(t.getString("name"))).findFirst().orElseThrow();
        assertEquals("everything", echo.getString("server"));
        assertEquals("echo", echo.getString("tool"));
        assertNotNull(rs.get(0).bodyAsJsonObject().getValue("version"));
        JsonObject anthropic = rs.get(1).bodyAsJsonObject().getJsonArray("tools").getJsonObject(0);
        assertNotNull(anthropic.getJsonObject("input_schema"), anthropic::encode);
        assertError(rs.get(2), 401, "unauthorized", null);
        ctx.completeNow();
      })));
  }

  @Test
  void theChatPageIsServedAtTheRoot(VertxTestContext ctx) {
    fx.request(HttpMethod.GET, "/", null).send().onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(200, r.statusCode());
      assertTrue(r.getHeader("Content-Type").startsWith("text/html"), r.getHeader("Content-Type"));
      assertTrue(r.bodyAsString().contains("<title>Agentbus chat</title>"));
      assertTrue(r.bodyAsString().contains("text/event-stream"));
      ctx.completeNow();
    })));
  }

  @Test
  void tokensNeverShowInLogsOrErrorBodies(VertxTestContext ctx) {
    String wrong = "wrong-secret-token-93c1";
    fx.create(ALICE).compose(id -> sequence(List.of(
      () -> fx.request(HttpMethod.GET, "/v1/conversations/" + id, wrong).send(),
      () -> fx.request(HttpMethod.GET, "/v1/conversations/" + id, BOB).send(),
      () -> fx.send(fx.api, id, ALICE, "plain question"),
      () -> fx.request(HttpMethod.POST, "/v1/conversations/" + id + "/messages", ALICE).sendBuffer(Buffer.buffer("{oops")))))
      .onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
        assertEquals(200, rs.get(2).statusCode(), rs.get(2).bodyAsString());
        for (HttpResponse<Buffer> r : rs) {
          String body = r.bodyAsString();
          assertFalse(body.contains(wrong) || body.contains(ALICE) || body.contains(BOB), body);
        }
        assertTrue(logs.contains(" -> 401 "), "the refused request was not logged: the checks below would prove nothing");
        assertFalse(logs.contains(ALICE), "alice's token was logged");
        assertFalse(logs.contains(BOB), "bob's token was logged");
        assertFalse(logs.contains(wrong), "a presented token was logged");
        assertFalse(fx.api.toString().contains(ALICE));
        assertFalse(new HttpApiOptions().addToken(ALICE, "alice").toString().contains(ALICE));
        ctx.completeNow();
      })));
  }

  @Test
  void withoutTokensTheApiListensOnLoopbackOnlyAndSaysSo(Vertx vertx, VertxTestContext ctx) {
    HttpApiVerticle open = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("0.0.0.0"));
    vertx.deployVerticle(open).compose(deployment -> {
      ctx.verify(() -> {
        assertEquals(HttpApiOptions.LOOPBACK, open.host());
        assertTrue(logs.lines().stream().anyMatch(l -> l.startsWith("WARN") && l.contains("No API tokens configured")
          && l.contains("127.0.0.1 only")), "no loopback warning");
      });
      return fx.request(HttpMethod.POST, open, "/v1/conversations", null).sendJsonObject(new JsonObject())
        .compose(created -> {
          ctx.verify(() -> assertEquals(201, created.statusCode(), created.bodyAsString()));
          String id = created.bodyAsJsonObject().getString("id");
          return open.drain().compose(v -> sequence(List.of(
            () -> fx.send(open, id, null, "after drain"),
            () -> fx.request(HttpMethod.GET, open, "/health", null).send())));
        })
        .eventually(() -> vertx.undeploy(deployment));
    }).onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
      assertError(rs.get(0), 503, "unavailable", "shutting down");
      assertEquals("1", rs.get(0).getHeader("Retry-After"));
      assertEquals(503, rs.get(1).statusCode());
      assertEquals("DRAINING", rs.get(1).bodyAsJsonObject().getString("status"));
      ctx.completeNow();
    })));
  }

  @Test
  void optionsRoundTripAndRejectWrongTypesByName() {
    HttpApiOptions o = new HttpApiOptions(new JsonObject().put("port", 0).put("tokens", new JsonObject().put("t1", "a"))
      .put("maxBodyBytes", 10).put("maxInFlightTurns", 2).put("servers", new JsonArray().add("x")));
    assertEquals(o.toJson(), new HttpApiOptions(o.toJson()).toJson());
    assertEquals("0.0.0.0", o.effectiveHost());
    assertEquals("127.0.0.1", new HttpApiOptions().effectiveHost());
    for (String field : List.of("port", "maxBodyBytes", "maxInFlightTurns", "host", "tokens", "servers")) {
      IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new HttpApiOptions(new JsonObject().put(field, new JsonArray().add(true))));
      assertTrue(e.getMessage().contains("'" + field + "'"), e.getMessage());
    }
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
      () -> new HttpApiOptions(new JsonObject().put("tokens", new JsonObject().put("secret-xyz", 1))));
    assertFalse(e.getMessage().contains("secret-xyz"));
  }
}
