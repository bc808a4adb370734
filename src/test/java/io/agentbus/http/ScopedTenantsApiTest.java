package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Scope;
import io.agentbus.mcp.Tenants;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.WhoAmIServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.WebClient;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two tenants (two bearer tokens) over the real HTTP API, the mock model over real HTTP asking
 * for two parallel {@code whoami} calls per turn, and {@link WhoAmIServer} children that
 * report the tenant and secret they were started with: with {@code scope: tenant} each
 * tenant's calls, concurrent turns included, reach only its own child; with
 * {@code scope: conversation} every conversation has its own. /health and /metrics show the
 * connections but no tenant's secret.
 */
@Integration
@ExtendWith(VertxExtension.class)
@Timeout(value = 180, timeUnit = TimeUnit.SECONDS)
class ScopedTenantsApiTest {

  private static final String ACME = "acme-token-5c1e";
  private static final String GLOBEX = "globex-token-9b7d";
  private static final Tenants TENANTS = Tenants.of(Map.of(
    "acme", Map.of("TOKEN", "acme-secret-1"), "globex", Map.of("TOKEN", "globex-secret-2")));

  private MockModelServer mock;
  private Agentbus agentbus;
  private HttpApiVerticle api;
  private WebClient web;

  private static JsonObject whoamiTwice(String tool) {
    JsonObject use = new JsonObject().put("type", "tool_use").put("name", tool).put("input", new JsonObject().put("delayMs", 200));
    return new JsonObject().put("content", new JsonArray().add(use).add(use.copy()));
  }

  private static McpServerOptions who(String name, Scope scope) {
    return InteropServers.javaMain(name, WhoAmIServer.class).setScope(scope)
      .setEnv(Map.of("WHO_TENANT", "${tenant.id}", "WHO_SECRET", "${tenant.secret.TOKEN}"));
  }

  @BeforeEach
  void start(Vertx vertx, VertxTestContext ctx) {
    JsonObject script = new JsonObject().put("conversations", new JsonArray()
      .add(new JsonObject().put("match", "TENANT").put("replies", new JsonArray().add(whoamiTwice("mcp__who__whoami"))
        .add(new JsonObject().put("text", "done"))))
      .add(new JsonObject().put("match", "CONVERSATION").put("replies", new JsonArray()
        .add(whoamiTwice("mcp__whoconv__whoami")).add(new JsonObject().put("text", "done")))));
    web = WebClient.create(vertx);
    MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(script))
      .compose(m -> {
        mock = m;
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + m.actualPort()).setModel("mock-model");
        return Agentbus.deploy(vertx, new AgentbusOptions().setTenants(TENANTS)
          .addMcpServer(who("who", Scope.TENANT)).addMcpServer(who("whoconv", Scope.CONVERSATION))
          .setConversationInstances(2).setConversation(new ConversationOptions().setModel(model).setMaxIterations(3)));
      })
      .compose(a -> {
        agentbus = a;
        api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(ACME, "acme")
          .addToken(GLOBEX, "globex").setServers(List.of("who", "whoconv")));
        return vertx.deployVerticle(api);
      })
      .onComplete(ctx.succeedingThenComplete());
  }

  @AfterEach
  void stop(VertxTestContext ctx) {
    Future<Void> closed = agentbus == null ? Future.succeededFuture() : agentbus.close();
    closed.eventually(() -> mock == null ? Future.succeededFuture() : mock.close()).onComplete(ctx.succeedingThenComplete());
  }

  private HttpRequest<Buffer> request(HttpMethod method, String path, String token) {
    HttpRequest<Buffer> req = web.request(method, api.actualPort(), "127.0.0.1", path);
    return token == null ? req : req.bearerTokenAuthentication(token);
  }

  /** Runs one turn in a new conversation; completes with what each whoami call reported. */
  private Future<List<JsonObject>> turn(String token, String content) {
    return request(HttpMethod.POST, "/v1/conversations", token).sendJsonObject(new JsonObject())
      .map(r -> r.bodyAsJsonObject().getString("id"))
      .compose(id -> request(HttpMethod.POST, "/v1/conversations/" + id + "/messages", token)
        .sendJsonObject(new JsonObject().put("content", content))
        .compose(r -> {
          if (r.statusCode() != 200 || !"done".equals(r.bodyAsJsonObject().getString("answer"))) {
            return Future.failedFuture("turn failed: " + r.bodyAsString());
          }
          return request(HttpMethod.GET, "/v1/conversations/" + id, token).send();
        }))
      .map(r -> reported(r.bodyAsJsonObject().getJsonArray("messages")));
  }

  /** The whoami reports in the tool_result blocks of a history. */
  private static List<JsonObject> reported(JsonArray messages) {
    List<JsonObject> out = new ArrayList<>();
    for (Object m : messages) {
      if (((JsonObject) m).getValue("content") instanceof JsonArray blocks) {
        for (Object b : blocks) {
          JsonObject block = (JsonObject) b;
          if ("tool_result".equals(block.getString("type"))) {
            assertFalse(block.getBoolean("is_error", false), block.encode());
            Object c = block.getValue("content");
            String text = c instanceof String s ? s : ((JsonArray) c).getJsonObject(0).getString("text");
            out.add(new JsonObject(text));
          }
        }
      }
    }
    assertEquals(2, out.size(), messages.encode());
    return out;
  }

  private static Set<Long> pids(List<Future<List<JsonObject>>> turns, String tenant, String secret) {
    Set<Long> pids = new HashSet<>();
    for (Future<List<JsonObject>> t : turns) {
      for (JsonObject me : t.result()) {
        assertEquals(tenant, me.getString("tenant"), me.encode());
        assertEquals(secret, me.getString("secret"), me.encode());
        pids.add(me.getLong("pid"));
      }
    }
    return pids;
  }

  @Test
  void eachTenantReachesOnlyItsOwnConnectionConcurrentTurnsIncluded(Vertx vertx, VertxTestContext ctx) {
    List<Future<List<JsonObject>>> acme = new ArrayList<>();
    List<Future<List<JsonObject>>> globex = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      acme.add(turn(ACME, "TENANT who am I?"));
      globex.add(turn(GLOBEX, "TENANT who am I?"));
    }
    List<Future<List<JsonObject>>> all = new ArrayList<>(acme);
    all.addAll(globex);
    Future.all(all)
      .compose(v -> request(HttpMethod.GET, "/health", ACME).send())
      .compose(health -> {
        ctx.verify(() -> {
          Set<Long> acmePids = pids(acme, "acme", "acme-secret-1");
          Set<Long> globexPids = pids(globex, "globex", "globex-secret-2");
          assertEquals(1, acmePids.size(), "one connection per tenant: " + acmePids);
          assertEquals(1, globexPids.size(), "one connection per tenant: " + globexPids);
          assertNotEquals(acmePids, globexPids);
          JsonObject who = health.bodyAsJsonObject().getJsonObject("servers").getJsonObject("who");
          assertEquals("tenant", who.getString("scope"));
          assertEquals(2, who.getInteger("connections"));
          assertEquals(2, who.getInteger("toolCount"), "whoami and die");
          assertFalse(health.bodyAsString().contains("secret-"), health.bodyAsString());
        });
        return request(HttpMethod.GET, "/metrics", ACME).send();
      })
      .onComplete(ctx.succeeding(metrics -> ctx.verify(() -> {
        String text = metrics.bodyAsString();
        assertTrue(text.contains("server=\"who\""), "tool calls are counted by server");
        assertTrue(text.contains("agentbus_mcp_scoped_connections_total{event=\"opened\",server=\"who\"} 2.0"), text);
        assertFalse(text.contains("acme") || text.contains("globex") || text.contains("secret-"), "no tenant in the metrics");
        ctx.completeNow();
      })));
  }

  @Test
  void eachConversationReachesOnlyItsOwnConnection(Vertx vertx, VertxTestContext ctx) {
    List<Future<List<JsonObject>>> acme = List.of(turn(ACME, "CONVERSATION 1"), turn(ACME, "CONVERSATION 2"));
    List<Future<List<JsonObject>>> globex = List.of(turn(GLOBEX, "CONVERSATION 1"), turn(GLOBEX, "CONVERSATION 2"));
    Future.all(List.of(acme.get(0), acme.get(1), globex.get(0), globex.get(1))).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      Set<Long> all = new HashSet<>();
      for (Future<List<JsonObject>> t : List.of(acme.get(0), acme.get(1))) {
        Set<Long> pids = pids(List.of(t), "acme", "acme-secret-1");
        assertEquals(1, pids.size(), "the two calls of a turn share their conversation's connection");
        all.addAll(pids);
      }
      for (Future<List<JsonObject>> t : List.of(globex.get(0), globex.get(1))) {
        Set<Long> pids = pids(List.of(t), "globex", "globex-secret-2");
        assertEquals(1, pids.size());
        all.addAll(pids);
      }
      assertEquals(4, all.size(), "one connection per conversation: " + all);
      ctx.completeNow();
    })));
  }

  @Test
  void deletingAConversationClosesItsConnectionAtOnce(Vertx vertx, VertxTestContext ctx) {
    // whoconv keeps its default idleTimeoutMs (5 min): only the deletion can end the child within the test
    request(HttpMethod.POST, "/v1/conversations", ACME).sendJsonObject(new JsonObject())
      .map(r -> r.bodyAsJsonObject().getString("id"))
      .compose(id -> request(HttpMethod.POST, "/v1/conversations/" + id + "/messages", ACME)
        .sendJsonObject(new JsonObject().put("content", "CONVERSATION to delete"))
        .compose(r -> request(HttpMethod.GET, "/v1/conversations/" + id, ACME).send())
        .map(r -> reported(r.bodyAsJsonObject().getJsonArray("messages")).get(0).getLong("pid"))
        .compose(pid -> {
          ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
          return request(HttpMethod.DELETE, "/v1/conversations/" + id, ACME).send().compose(r -> {
            ctx.verify(() -> assertEquals(204, r.statusCode()));
            return Future.fromCompletionStage(child.onExit(), vertx.getOrCreateContext());
          });
        }))
      .onComplete(ctx.succeedingThenComplete());
  }
}
