package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Scope;
import io.agentbus.mcp.Tenants;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tenant-scoped Streamable HTTP: each tenant gets its own session, made with its own header
 * values ({@code ${tenant.id}}, {@code ${tenant.secret.TOKEN}}), on a real HTTP server that
 * keeps sessions apart and reports, for each call, the headers and session it came with.
 */
@ExtendWith(VertxExtension.class)
class ScopedHttpConnectionsTest {

  /** A Streamable HTTP MCP server with one session per initialize and a {@code whoami} tool. */
  private static final class SessionServer {
    final List<String> deleted = new ArrayList<>();
    final Set<String> sessions = new HashSet<>();
    /** Completes once two sessions were ended. */
    final Promise<Void> twoDeleted = Promise.promise();
    HttpServer server;
    int next;

    Future<SessionServer> start(Vertx vertx) {
      server = vertx.createHttpServer().requestHandler(this::handle);
      return server.listen(0, "127.0.0.1").map(s -> this);
    }

    String url() {
      return "http://127.0.0.1:" + server.actualPort() + "/mcp";
    }

    private void handle(HttpServerRequest req) {
      String session = req.getHeader("Mcp-Session-Id");
      if (req.method() == HttpMethod.DELETE) {
        deleted.add(session);
        if (deleted.size() == 2) {
          twoDeleted.tryComplete();
        }
        req.response().end();
        return;
      }
      if (req.method() != HttpMethod.POST) {
        req.response().setStatusCode(405).end();
        return;
      }
      req.body().onSuccess(buf -> {
        JsonObject msg = buf.toJsonObject();
        String method = msg.getString("method");
        JsonObject result;
        if ("initialize".equals(method)) {
          String id = "s-" + (++next);
          sessions.add(id);
          req.response().putHeader("Mcp-Session-Id", id);
          result = new JsonObject().put("protocolVersion", "2025-11-25")
            .put("capabilities", new JsonObject().put("tools", new JsonObject()))
            .put("serverInfo", new JsonObject().put("name", "sessions").put("version", "1"));
        } else if (session == null || !sessions.contains(session)) {
          req.response().setStatusCode(404).end();
          return;
        } else if (msg.getValue("id") == null) {
          req.response().setStatusCode(202).end();
          return;
        } else if ("tools/list".equals(method)) {
          result = new JsonObject().put("tools", new JsonArray().add(new JsonObject().put("name", "whoami")
            .put("inputSchema", new JsonObject().put("type", "object"))));
        } else {
          JsonObject me = new JsonObject().put("tenant", req.getHeader("X-Tenant"))
            .put("authorization", req.getHeader("Authorization")).put("session", session);
          result = new JsonObject().put("content", new JsonArray().add(new JsonObject().put("type", "text").put("text", me.encode())));
        }
        req.response().putHeader("Content-Type", "application/json")
          .end(new JsonObject().put("jsonrpc", "2.0").put("id", msg.getValue("id")).put("result", result).encode());
      });
    }
  }

  private static Future<JsonObject> whoami(Vertx vertx, String tenant) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp("sessions"),
        new JsonObject().put("name", "whoami").put("arguments", new JsonObject()).put("tenant", tenant),
        new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL))
      .map(m -> new JsonObject(m.body().getJsonArray("content").getJsonObject(0).getString("text")));
  }

  @Test
  void eachTenantHasItsOwnSessionWithItsOwnHeaders(Vertx vertx, VertxTestContext ctx) {
    SessionServer http = new SessionServer();
    Tenants tenants = Tenants.of(Map.of("acme", Map.of("TOKEN", "acme-secret-1"), "globex", Map.of("TOKEN", "globex-secret-2")));
    http.start(vertx).compose(s -> {
      McpServerOptions options = new McpServerOptions().setName("sessions").setTransport(McpServerOptions.Transport.HTTP)
        .setUrl(s.url()).setScope(Scope.TENANT).setIdleTimeoutMs(500)
        .setHeaders(Map.of("X-Tenant", "${tenant.id}", "Authorization", "Bearer ${tenant.secret.TOKEN}"));
      return vertx.deployVerticle(new McpServerVerticle().setTenants(tenants), new DeploymentOptions().setConfig(options.toJson()));
    }).compose(id -> {
      List<Future<JsonObject>> calls = List.of(whoami(vertx, "acme"), whoami(vertx, "globex"), whoami(vertx, "acme"),
        whoami(vertx, "globex"));
      return Future.all(calls).map(v -> calls);
    }).compose(calls -> {
      JsonObject acme = calls.get(0).result();
      JsonObject globex = calls.get(1).result();
      ctx.verify(() -> {
        assertEquals("acme", acme.getString("tenant"));
        assertEquals("Bearer acme-secret-1", acme.getString("authorization"));
        assertEquals("globex", globex.getString("tenant"));
        assertEquals("Bearer globex-secret-2", globex.getString("authorization"));
        assertEquals(acme, calls.get(2).result());
        assertEquals(globex, calls.get(3).result());
        assertNotEquals(acme.getString("session"), globex.getString("session"));
        assertFalse(List.of(acme.getString("session"), globex.getString("session")).contains("s-1"),
          "the listing session serves no call");
        assertEquals(3, http.sessions.size());
      });
      // idle: both tenants' sessions are ended with DELETE; the listing session stays
      return http.twoDeleted.future().map(v -> {
        ctx.verify(() -> assertEquals(Set.of(acme.getString("session"), globex.getString("session")), new HashSet<>(http.deleted)));
        return v;
      });
    }).onComplete(ctx.succeedingThenComplete());
  }
}
