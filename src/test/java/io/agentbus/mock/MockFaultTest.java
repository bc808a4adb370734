package io.agentbus.mock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Fault injection through the per-request header and the fault spec syntax. */
@ExtendWith(VertxExtension.class)
class MockFaultTest {

  @Test
  void faultSpecsParse() {
    MockFault f = MockFault.parse("429;retry-after=2;retry-after-ms=150;should-retry=false;latency=5");
    assertEquals(MockFault.Kind.RATE_LIMIT, f.kind());
    assertEquals("2", f.retryAfter());
    assertEquals("150", f.retryAfterMs());
    assertEquals(Boolean.FALSE, f.shouldRetry());
    assertEquals(5, f.latencyMs());
    assertEquals(MockFault.Kind.OVERLOADED, MockFault.parse("529").kind());
    assertThrows(IllegalArgumentException.class, () -> MockFault.parse("418"));
    assertThrows(IllegalArgumentException.class, () -> new MockModelOptions().setFaults(new JsonArray().add("nope")));
  }

  @Test
  void headerFaultGivesTheRealRateLimitResponse(Vertx vertx, VertxTestContext ctx) {
    WebClient web = WebClient.create(vertx);
    MockModelServer.start(vertx, new MockModelOptions()).compose(m -> web.post(m.actualPort(), "127.0.0.1", "/v1/messages")
        .putHeaders(MultiMap.caseInsensitiveMultiMap().set("x-api-key", "k").set("anthropic-version", "2023-06-01")
            .set(MockModelServer.FAULT_HEADER, "429;retry-after=7;should-retry=true;latency=20"))
        .sendJsonObject(new JsonObject().put("model", "m").put("max_tokens", 5)
            .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi")))))
        .onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
          assertEquals(429, resp.statusCode());
          assertEquals("7", resp.getHeader("retry-after"));
          assertEquals("true", resp.getHeader("x-should-retry"));
          JsonObject body = resp.bodyAsJsonObject();
          assertEquals("rate_limit_error", body.getJsonObject("error").getString("type"));
          assertEquals(resp.getHeader("request-id"), body.getString("request_id"));
          ctx.completeNow();
        })));
  }

  @Test
  void overloadedOnOpenAiIs503(Vertx vertx, VertxTestContext ctx) {
    WebClient web = WebClient.create(vertx);
    MockModelServer.start(vertx, new MockModelOptions()).compose(m -> web.post(m.actualPort(), "127.0.0.1", "/v1/chat/completions")
        .putHeaders(MultiMap.caseInsensitiveMultiMap().set("authorization", "Bearer k").set(MockModelServer.FAULT_HEADER, "529"))
        .sendJsonObject(new JsonObject().put("model", "m")
            .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "hi")))))
        .onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
          assertEquals(503, resp.statusCode());
          assertEquals("server_error", resp.bodyAsJsonObject().getJsonObject("error").getString("type"));
          ctx.completeNow();
        })));
  }
}
