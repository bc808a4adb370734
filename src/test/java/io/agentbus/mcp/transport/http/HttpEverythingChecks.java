package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.ProgressUpdate;
import io.agentbus.testing.LogCapture;
import io.agentbus.testing.NodeHttpServer;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The interop checks of the stdio suite, run against the real server-everything over one
 * of its HTTP modes. Subclasses say which mode and how to configure the client.
 */
@ExtendWith(VertxExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class HttpEverythingChecks {

  static final String TOKEN = "tok-7f3a9c1e5b2d4680-secret";

  protected NodeHttpServer server;
  protected Context context;
  protected McpClient client;
  protected final Promise<List<JsonObject>> relisted = Promise.promise();
  protected final List<List<JsonObject>> relists = new CopyOnWriteArrayList<>();

  /** @return the server-everything mode: streamableHttp or sse */
  abstract String mode();

  /** @return the client options for the server on {@code port} */
  abstract McpServerOptions options(int port);

  McpServerOptions baseOptions(String name, String url) {
    return new McpServerOptions().setName(name).setUrl(url).setTimeoutMs(10_000).setConnectTimeoutMs(10_000)
      .setHeaders(Map.of("Authorization", "Bearer " + TOKEN, "X-Api-Key", TOKEN));
  }

  @BeforeAll
  void startServerAndConnect(Vertx vertx, VertxTestContext ctx) {
    context = vertx.getOrCreateContext();
    NodeHttpServer.start(vertx, context, mode()).compose(s -> {
      server = s;
      client = McpClient.create(vertx, options(s.port()));
      client.toolsChangedHandler(tools -> {
        relists.add(tools);
        relisted.tryComplete(tools);
      });
      return client.connect();
    }).onComplete(ctx.succeedingThenComplete());
  }

  @AfterAll
  void stop(Vertx vertx, VertxTestContext ctx) {
    Future<Void> closed = client == null ? Future.succeededFuture() : client.close();
    closed
      // waiting for the process to exit blocks: not on an event loop
      .eventually(() -> vertx.executeBlocking(() -> {
        if (server != null) {
          server.close();
        }
        return null;
      }, false))
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertFalse(LogCapture.contains(TOKEN.substring(4)), "a header value was logged");
        assertFalse(LogCapture.contains("blocked for"), "a Vert.x thread was blocked");
        ctx.completeNow();
      })));
  }

  @Test
  void handshakeNegotiatesTheNewestVersion() {
    assertEquals(McpClient.Status.READY, client.status());
    assertEquals("2025-11-25", client.protocolVersion());
    assertNotNull(client.initializeResult().getJsonObject("serverInfo").getString("name"));
    assertFalse(client.describe().encode().contains(TOKEN.substring(4)));
  }

  @Test
  void listsTheTools() {
    List<String> names = client.tools().stream().map(t -> t.getString("name")).toList();
    assertTrue(names.containsAll(List.of("echo", "get-tiny-image", "trigger-long-running-operation", "get-sum")),
      names::toString);
  }

  @Test
  void listChangedArrivesOnTheServerStreamAndTriggersARelist(VertxTestContext ctx) {
    // server-everything sends tools/list_changed right after notifications/initialized,
    // on the GET stream (Streamable HTTP) or the SSE stream (legacy)
    relisted.future().onComplete(ctx.succeeding(tools -> ctx.verify(() -> {
      assertFalse(tools.isEmpty());
      ctx.completeNow();
    })));
  }

  @Test
  void echo(VertxTestContext ctx) {
    client.callTool("echo", new JsonObject().put("message", "hi"), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertFalse(result.getBoolean("isError", false));
        assertEquals("Echo: hi", result.getJsonArray("content").getJsonObject(0).getString("text"));
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
  void concurrentCallsAreCorrelated(VertxTestContext ctx) {
    int n = 20;
    List<Future<JsonObject>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      futures.add(client.callTool("echo", new JsonObject().put("message", "m" + i), null));
    }
    Future.all(futures).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
      for (int i = 0; i < n; i++) {
        assertEquals("Echo: m" + i, futures.get(i).result().getJsonArray("content").getJsonObject(0).getString("text"));
      }
      ctx.completeNow();
    })));
  }
}
