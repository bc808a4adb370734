package io.agentbus.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ProgressUpdate;
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
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The interop checks every transport must pass against the real server-everything: one
 * client per class, connected once. Subclasses start the server (if any) and give the
 * client options; they add their transport's own checks.
 */
@ExtendWith(VertxExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class EverythingChecks {

  /** Everything logged from this class's start to its end (the instance lives that long). */
  protected final LogCapture.Lines logs = LogCapture.capture();
  protected Context context;
  protected McpClient client;
  protected final Promise<List<JsonObject>> relisted = Promise.promise();
  protected final List<List<JsonObject>> relists = new CopyOnWriteArrayList<>();

  /** Starts the server if it runs apart; completes with the options to reach it. */
  protected abstract Future<McpServerOptions> startServer(Vertx vertx);

  /** Stops what {@link #startServer} started (runs after the client closed). */
  protected Future<Void> stopServer(Vertx vertx) {
    return Future.succeededFuture();
  }

  /** Extra checks once everything stopped (e.g. nothing secret was logged). */
  protected void afterAll() {
  }

  @BeforeAll
  void connect(Vertx vertx, VertxTestContext ctx) {
    context = vertx.getOrCreateContext();
    Promise<McpServerOptions> started = Promise.promise();
    context.runOnContext(v -> startServer(vertx).onComplete(started));
    started.future().compose(options -> {
      Promise<JsonObject> connected = Promise.promise();
      // the client is bound to the context it is created on
      context.runOnContext(v -> {
        client = McpClient.create(vertx, options);
        client.toolsChangedHandler(tools -> {
          relists.add(tools);
          relisted.tryComplete(tools);
        });
        client.connect().onComplete(connected);
      });
      return connected.future();
    }).onComplete(ctx.succeedingThenComplete());
  }

  @AfterAll
  void close(Vertx vertx, VertxTestContext ctx) {
    Future<Void> closed = client == null ? Future.succeededFuture() : client.close();
    closed.eventually(() -> stopServer(vertx)).andThen(ar -> logs.close())
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertTrue(logs.contains("] ready: "), "the client's start was not captured: the checks below would prove nothing");
        assertFalse(logs.contains("blocked for"), "a Vert.x thread was blocked");
        afterAll();
        ctx.completeNow();
      })));
  }

  @Test
  public void handshakeNegotiatesTheNewestVersion() {
    assertEquals(McpClient.Status.READY, client.status());
    assertEquals("2025-11-25", client.protocolVersion());
    assertNotNull(client.initializeResult().getJsonObject("serverInfo").getString("name"));
  }

  @Test
  public void listsTheTools() {
    List<String> names = client.tools().stream().map(t -> t.getString("name")).toList();
    assertTrue(names.containsAll(List.of("echo", "get-tiny-image", "trigger-long-running-operation", "get-sum")),
      names::toString);
  }

  @Test
  public void listChangedArrivesOnTheServerStreamAndTriggersARelist(VertxTestContext ctx) {
    // server-everything sends tools/list_changed right after notifications/initialized, while
    // connect() lists: the client lists again before connect() completes, so what it holds is
    // what a fresh tools/list says now (a relist after READY is covered by McpClientInboundTest)
    client.request("tools/list", new JsonObject()).onComplete(ctx.succeeding(page -> ctx.verify(() -> {
      assertEquals(visibleNames(page.getJsonArray("tools")), visibleNames(new io.vertx.core.json.JsonArray(client.tools())));
      ctx.completeNow();
    })));
  }

  /** @return the names of the tools the client shows (task-only tools are hidden) */
  protected static java.util.Set<String> visibleNames(io.vertx.core.json.JsonArray tools) {
    return tools.stream().map(t -> (JsonObject) t)
      .filter(t -> !(t.getValue("execution") instanceof JsonObject e && "required".equals(e.getValue("taskSupport"))))
      .map(t -> t.getString("name")).collect(java.util.stream.Collectors.toSet());
  }

  @Test
  public void echo(VertxTestContext ctx) {
    client.callTool("echo", new JsonObject().put("message", "hi"), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertFalse(result.getBoolean("isError", false));
        assertEquals("Echo: hi", result.getJsonArray("content").getJsonObject(0).getString("text"));
        ctx.completeNow();
      })));
  }

  @Test
  public void tinyImageIsABase64Png(VertxTestContext ctx) {
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
  public void progressReachesTheCaller(VertxTestContext ctx) {
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
  public void badArgumentsGiveAnErrorResult(VertxTestContext ctx) {
    client.callTool("echo", new JsonObject().put("message", 42), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertTrue(result.getBoolean("isError", false));
        ctx.completeNow();
      })));
  }

  @Test
  public void unknownToolGivesAnErrorResult(VertxTestContext ctx) {
    client.callTool("no-such-tool", new JsonObject(), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertTrue(result.getBoolean("isError", false));
        ctx.completeNow();
      })));
  }

  @Test
  public void unknownMethodIsAJsonRpcError(VertxTestContext ctx) {
    client.request("no/such/method", new JsonObject())
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        McpException e = assertInstanceOf(McpException.class, err);
        assertEquals(McpException.Kind.RPC_ERROR, e.kind());
        assertEquals(-32601, e.rpcCode());
        ctx.completeNow();
      })));
  }

  @Test
  public void concurrentCallsAreCorrelated(VertxTestContext ctx) {
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
