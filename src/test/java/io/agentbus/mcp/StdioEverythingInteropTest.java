package io.agentbus.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.InteropServers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The MCP client against the real server-everything over real stdio. */
@ExtendWith(VertxExtension.class)
class StdioEverythingInteropTest {

  private static McpClient client;
  private static final List<List<JsonObject>> relisted = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void connect(Vertx vertx, VertxTestContext ctx) {
    client = McpClient.create(vertx, InteropServers.everythingStdio("everything")
      .setEnv(Map.of("AGENTBUS_TEST_VAR", "configured")));
    client.toolsChangedHandler(relisted::add);
    client.connect().onComplete(ctx.succeedingThenComplete());
  }

  @AfterAll
  static void close(VertxTestContext ctx) {
    client.close().onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void handshakeNegotiatesTheNewestVersion() {
    assertEquals(McpClient.Status.READY, client.status());
    assertEquals("2025-11-25", client.protocolVersion());
    JsonObject info = client.initializeResult().getJsonObject("serverInfo");
    assertNotNull(info.getString("name"));
    assertTrue(client.initializeResult().getJsonObject("capabilities").containsKey("tools"));
    assertTrue(client.describe().getLong("pid") > 0);
  }

  @Test
  void listsEveryToolExceptTaskOnlyOnes(VertxTestContext ctx) {
    client.request("tools/list", null).onComplete(ctx.succeeding(raw -> ctx.verify(() -> {
      Set<String> all = raw.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).collect(Collectors.toSet());
      Set<String> taskOnly = raw.getJsonArray("tools").stream().map(t -> (JsonObject) t)
        .filter(t -> "required".equals(t.getJsonObject("execution", new JsonObject()).getString("taskSupport")))
        .map(t -> t.getString("name")).collect(Collectors.toSet());
      Set<String> listed = client.tools().stream().map(t -> t.getString("name")).collect(Collectors.toSet());
      assertTrue(listed.containsAll(Set.of("echo", "get-tiny-image", "trigger-long-running-operation", "get-sum")), listed::toString);
      assertFalse(taskOnly.isEmpty(), "server-everything has a task-only tool");
      all.removeAll(taskOnly);
      assertEquals(all, listed);
      ctx.completeNow();
    })));
  }

  @Test
  void listChangedNotificationTriggersARelist(VertxTestContext ctx) {
    // server-everything sends tools/list_changed right after notifications/initialized.
    ctx.verify(() -> {
      assertFalse(relisted.isEmpty(), "no relist after list_changed");
      assertEquals(client.tools().size(), relisted.get(relisted.size() - 1).size());
    });
    ctx.completeNow();
  }

  @Test
  void echo(VertxTestContext ctx) {
    client.callTool("echo", new JsonObject().put("message", "hi"), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertFalse(result.getBoolean("isError", false));
        JsonObject first = result.getJsonArray("content").getJsonObject(0);
        assertEquals("text", first.getString("type"));
        assertEquals("Echo: hi", first.getString("text"));
        ctx.completeNow();
      })));
  }

  @Test
  void tinyImageIsABase64Png(VertxTestContext ctx) {
    client.callTool("get-tiny-image", new JsonObject(), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        JsonObject image = result.getJsonArray("content").stream().map(b -> (JsonObject) b)
          .filter(b -> "image".equals(b.getString("type"))).findFirst().orElseThrow();
        assertEquals("image/png", image.getString("mimeType"));
        byte[] png = Base64.getDecoder().decode(image.getString("data"));
        assertEquals((byte) 0x89, png[0]);
        assertEquals("PNG", new String(png, 1, 3));
        ctx.completeNow();
      })));
  }

  @Test
  void progressReachesTheCaller(VertxTestContext ctx) {
    List<ProgressUpdate> updates = new CopyOnWriteArrayList<>();
    CallOptions options = new CallOptions().setTimeoutMs(5_000).setProgressHandler(updates::add);
    client.callTool("trigger-long-running-operation", new JsonObject().put("duration", 1).put("steps", 4), options)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertFalse(result.getBoolean("isError", false));
        assertEquals(4, updates.size(), updates::toString);
        for (int i = 1; i < updates.size(); i++) {
          assertTrue(updates.get(i).progress() > updates.get(i - 1).progress());
        }
        assertEquals(4.0, updates.get(3).total());
        ctx.completeNow();
      })));
  }

  @Test
  void badArgumentsGiveAnErrorResult(VertxTestContext ctx) {
    client.callTool("echo", new JsonObject().put("message", 42), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertTrue(result.getBoolean("isError", false));
        ctx.completeNow();
      })));
  }

  @Test
  void unknownToolGivesAnErrorResult(VertxTestContext ctx) {
    client.callTool("no-such-tool", new JsonObject(), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertTrue(result.getBoolean("isError", false));
        ctx.completeNow();
      })));
  }

  @Test
  void unknownMethodIsAJsonRpcError(VertxTestContext ctx) {
    client.request("no/such/method", new JsonObject())
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        McpException e = assertInstanceOf(McpException.class, err);
        assertEquals(McpException.Kind.RPC_ERROR, e.kind());
        assertEquals(-32601, e.rpcCode());
        ctx.completeNow();
      })));
  }

  @Test
  void pingIsAnswered(VertxTestContext ctx) {
    client.ping().onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void childGetsOnlyTheSafeEnvironmentPlusItsConfig(VertxTestContext ctx) {
    client.callTool("get-env", new JsonObject(), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        JsonObject env = new JsonObject(result.getJsonArray("content").getJsonObject(0).getString("text"));
        assertEquals("configured", env.getString("AGENTBUS_TEST_VAR"));
        Set<String> allowed = Set.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ", "AGENTBUS_TEST_VAR");
        for (String key : env.fieldNames()) {
          assertTrue(allowed.contains(key) || key.startsWith("LC_"), "leaked variable " + key);
        }
        ctx.completeNow();
      })));
  }

  @Test
  void concurrentCallsAreCorrelated(VertxTestContext ctx) {
    int n = 50;
    var futures = new java.util.ArrayList<io.vertx.core.Future<JsonObject>>();
    for (int i = 0; i < n; i++) {
      futures.add(client.callTool("echo", new JsonObject().put("message", "m" + i), null));
    }
    io.vertx.core.Future.all(futures).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
      for (int i = 0; i < n; i++) {
        JsonArray content = futures.get(i).result().getJsonArray("content");
        assertEquals("Echo: m" + i, content.getJsonObject(0).getString("text"));
      }
      ctx.completeNow();
    })));
  }
}
