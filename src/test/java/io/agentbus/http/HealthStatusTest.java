package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code /health} says whether the instance serves: 200 while it does, even when MCP servers
 * are not READY (DEGRADED, naming them), 503 only while it drains. The server verticles are
 * stood in for by consumers that answer {@code status}.
 */
@ExtendWith(VertxExtension.class)
class HealthStatusTest {

  private static MessageConsumer<JsonObject> server(Vertx vertx, String name, JsonObject status) {
    return vertx.eventBus().<JsonObject>localConsumer(Addresses.mcp(name), m -> {
      if (Actions.STATUS.equals(m.headers().get(Actions.HEADER))) {
        m.reply(status.copy().put("server", name));
      }
    });
  }

  private static Future<HttpResponse<Buffer>> health(Vertx vertx, HttpApiVerticle api) {
    return WebClient.create(vertx).get(api.actualPort(), "127.0.0.1", "/health").send();
  }

  @Test
  void serversNotReadyMakeTheInstanceDegradedNotUnavailable(Vertx vertx, VertxTestContext ctx) {
    MessageConsumer<JsonObject> up = server(vertx, "up", new JsonObject().put("status", "READY").put("restarts", 0).put("toolCount", 3));
    MessageConsumer<JsonObject> stuck = server(vertx, "stuck", new JsonObject().put("status", "STARTING").put("restarts", 0)
      .put("toolCount", 0).put("attempt", new JsonObject().put("phase", "listing tools").put("elapsedMs", 1200).put("connectTimeoutMs", 60_000)));
    MessageConsumer<JsonObject> flaky = server(vertx, "flaky", new JsonObject().put("status", "RESTARTING").put("restarts", 2)
      .put("toolCount", 0).put("detail", "server 'flaky' was not ready within 500 ms"));
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1")
      .setServers(List.of("up", "stuck", "flaky", "ghost")));
    Future.all(up.completion(), stuck.completion(), flaky.completion())
      .compose(v -> vertx.deployVerticle(api))
      .compose(id -> health(vertx, api))
      .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
        assertEquals(200, r.statusCode(), r.bodyAsString());
        JsonObject body = r.bodyAsJsonObject();
        assertEquals("DEGRADED", body.getString("status"));
        assertEquals(new JsonArray().add("stuck").add("flaky").add("ghost"), body.getJsonArray("notReady"));
        JsonObject servers = body.getJsonObject("servers");
        assertTrue(servers.getJsonObject("up").getBoolean("ready"));
        assertEquals(3, servers.getJsonObject("up").getInteger("toolCount"));
        JsonObject s = servers.getJsonObject("stuck");
        assertFalse(s.getBoolean("ready"));
        assertEquals("STARTING", s.getString("status"));
        assertEquals("listing tools", s.getJsonObject("attempt").getString("phase"));
        assertEquals(60_000, s.getJsonObject("attempt").getInteger("connectTimeoutMs"));
        assertEquals("RESTARTING", servers.getJsonObject("flaky").getString("status"));
        assertTrue(servers.getJsonObject("flaky").getString("detail").contains("not ready within 500 ms"));
        assertEquals("DOWN", servers.getJsonObject("ghost").getString("status"));
        assertTrue(servers.getJsonObject("ghost").getString("detail").contains("agentbus.mcp.ghost"));
        ctx.completeNow();
      })));
  }

  @Test
  void allReadyIsUpAndDrainingIs503(Vertx vertx, VertxTestContext ctx) {
    MessageConsumer<JsonObject> only = server(vertx, "only", new JsonObject().put("status", "READY").put("restarts", 0).put("toolCount", 1));
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").setServers(List.of("only")));
    only.completion()
      .compose(v -> vertx.deployVerticle(api))
      .compose(id -> health(vertx, api))
      .compose(before -> api.drain().compose(v -> health(vertx, api)).map(after -> List.of(before, after)))
      .onComplete(ctx.succeeding(rs -> ctx.verify(() -> {
        assertEquals(200, rs.get(0).statusCode(), rs.get(0).bodyAsString());
        assertEquals("UP", rs.get(0).bodyAsJsonObject().getString("status"));
        assertTrue(rs.get(0).bodyAsJsonObject().getJsonArray("notReady").isEmpty());
        assertEquals(503, rs.get(1).statusCode(), rs.get(1).bodyAsString());
        assertEquals("DRAINING", rs.get(1).bodyAsJsonObject().getString("status"));
        ctx.completeNow();
      })));
  }
}
