package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.catalog.CatalogEntry;
import io.agentbus.catalog.CatalogVerticle;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.McpTransport;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A server that answers {@code initialize} and then hangs on {@code tools/list}: a verticle
 * that connects in the background is deployed (and serves its address) at once, reports the
 * attempt's phase, keeps retrying the server, and its tools reach the catalog once it is READY.
 */
@ExtendWith(VertxExtension.class)
class McpServerBackgroundStartTest {

  /**
   * An in-memory server that answers {@code initialize}, but leaves {@code tools/list}
   * unanswered on its first {@code hangingAttempts} connections; later ones list {@code echo}.
   */
  static final class SlowLister {
    final int hangingAttempts;
    final AtomicInteger starts = new AtomicInteger();
    final Promise<Void> listAsked = Promise.promise();

    SlowLister(int hangingAttempts) {
      this.hangingAttempts = hangingAttempts;
    }

    Function<McpServerOptions, McpTransport> transports() {
      return options -> new Link(Vertx.currentContext(), starts.incrementAndGet() <= hangingAttempts);
    }

    final class Link implements McpTransport {
      private final Context context;
      private final boolean hangList;
      private Handler<JsonObject> handler;
      private boolean closed;

      Link(Context context, boolean hangList) {
        this.context = context;
        this.hangList = hangList;
      }

      @Override
      public Future<Void> start(Handler<JsonObject> messageHandler) {
        handler = messageHandler;
        return Future.succeededFuture();
      }

      @Override
      public Future<Void> send(JsonObject message) {
        if (closed) {
          return Future.failedFuture(new McpException(McpException.Kind.CONNECTION_CLOSED, "closed"));
        }
        Object id = message.getValue("id");
        String method = message.getString("method");
        if (id == null || method == null) {
          return Future.succeededFuture();
        }
        switch (method) {
          case "initialize" -> answer(id, new JsonObject().put("protocolVersion", "2025-11-25")
            .put("capabilities", new JsonObject().put("tools", new JsonObject()))
            .put("serverInfo", new JsonObject().put("name", "slow-lister").put("version", "1")));
          case "tools/list" -> {
            listAsked.tryComplete();
            if (!hangList) {
              answer(id, new JsonObject().put("tools", new JsonArray().add(new JsonObject().put("name", "echo")
                .put("inputSchema", new JsonObject().put("type", "object")))));
            }
          }
          default -> answer(id, new JsonObject());
        }
        return Future.succeededFuture();
      }

      private void answer(Object id, JsonObject result) {
        context.runOnContext(v -> {
          if (!closed) {
            handler.handle(new JsonObject().put("jsonrpc", "2.0").put("id", id).put("result", result));
          }
        });
      }

      @Override
      public McpTransport closeHandler(Handler<Throwable> closeHandler) {
        return this;
      }

      @Override
      public Future<Void> close() {
        closed = true;
        return Future.succeededFuture();
      }

      @Override
      public JsonObject describe() {
        return new JsonObject().put("transport", "in-memory");
      }
    }
  }

  private static McpServerOptions options(String name, long connectTimeoutMs) {
    return new McpServerOptions().setName(name).setCommand("unused-in-memory").setConnectTimeoutMs(connectTimeoutMs)
      .setRestartInitialBackoffMs(10).setRestartMaxBackoffMs(20);
  }

  private static Future<JsonObject> ask(Vertx vertx, String server, String action, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), body,
      new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(10_000)).map(m -> m.body());
  }

  @Test
  void deployedAtOnceWhileTheServerHangsOnToolsListThenStoppedCleanly(Vertx vertx, VertxTestContext ctx) {
    SlowLister server = new SlowLister(Integer.MAX_VALUE);
    McpServerVerticle verticle = new McpServerVerticle(server.transports(), McpServerVerticle.STABLE_AFTER_MS, false);
    vertx.deployVerticle(verticle, new DeploymentOptions().setConfig(options("stuck", 60_000).toJson()))
      .compose(id -> {
        // deployed while the first attempt still runs: its 60 s connect timeout cannot have fired
        ctx.verify(() -> assertFalse(verticle.firstAttempt().isComplete()));
        return server.listAsked.future()
          .compose(v -> ask(vertx, "stuck", Actions.STATUS, new JsonObject()))
          .compose(status -> ask(vertx, "stuck", Actions.TOOLS_LIST, new JsonObject()).map(list -> {
            ctx.verify(() -> {
              assertEquals("STARTING", status.getString("status"), status.encode());
              JsonObject attempt = status.getJsonObject("attempt");
              assertEquals("listing tools", attempt.getString("phase"), status.encode());
              assertEquals(60_000L, attempt.getLong("connectTimeoutMs"));
              assertTrue(attempt.getLong("elapsedMs") >= 0);
              assertEquals(0L, status.getLong("restarts"));
              assertEquals("STARTING", list.getString("status"));
              assertTrue(list.getJsonArray("tools").isEmpty());
            });
            return list;
          }))
          // a call waits for READY within its budget, then fails as never started
          .compose(v -> ask(vertx, "stuck", Actions.TOOLS_CALL, new JsonObject().put("name", "echo").put("budgetMs", 100))
            .transform(ar -> {
              ctx.verify(() -> {
                ReplyException e = assertInstanceOf(ReplyException.class, ar.cause());
                assertEquals(FailureCodes.TIMEOUT, e.failureCode());
                assertTrue(e.getMessage().startsWith(McpServerVerticle.NOT_STARTED), e.getMessage());
                assertTrue(e.getMessage().contains("starting"), e.getMessage());
              });
              return vertx.undeploy(id);
            }));
      })
      .compose(v -> verticle.firstAttempt())
      .compose(v -> verticle.firstReady().transform(Future::succeededFuture))
      .onComplete(ctx.succeeding(ready -> ctx.verify(() -> {
        assertTrue(ready.failed());
        assertTrue(ready.cause().getMessage().contains("'stuck' stopped before it was ever ready"), ready.cause().getMessage());
        assertEquals(1, server.starts.get());
        ctx.completeNow();
      })));
  }

  @Test
  void aServerRetriedAfterHangingOnToolsListJoinsTheCatalogOnceReady(Vertx vertx, VertxTestContext ctx) {
    SlowLister server = new SlowLister(2);
    ToolCatalog catalog = new ToolCatalog();
    McpServerVerticle verticle = new McpServerVerticle(server.transports(), McpServerVerticle.STABLE_AFTER_MS, false);
    Promise<JsonObject> joined = Promise.promise();
    vertx.eventBus().<JsonObject>localConsumer(Addresses.CATALOG_CHANGED, m -> {
      if (m.body().getJsonArray("tools").contains("mcp__late__echo")) {
        joined.tryComplete(m.body());
      }
    });
    // the order Agentbus.start deploys in: the server verticle, then the catalog at once
    vertx.deployVerticle(verticle, new DeploymentOptions().setConfig(options("late", 200).toJson()))
      .compose(id -> vertx.deployVerticle(new CatalogVerticle(catalog, List.of("late"))))
      .compose(id -> {
        // the first two attempts (200 ms each) hang on tools/list: nothing listed yet
        ctx.verify(() -> assertNull(catalog.current().byTool("late", "echo")));
        return verticle.firstReady();
      })
      .compose(v -> joined.future())
      .compose(event -> ask(vertx, "late", Actions.STATUS, new JsonObject()))
      .onComplete(ctx.succeeding(status -> ctx.verify(() -> {
        CatalogEntry echo = catalog.current().byTool("late", "echo");
        assertEquals("mcp__late__echo", echo.name());
        assertEquals("READY", status.getString("status"));
        assertEquals(2L, status.getLong("restarts"), status.encode());
        assertFalse(status.containsKey("attempt"), status.encode());
        assertEquals(3, server.starts.get());
        ctx.completeNow();
      })));
  }

  @Test
  void byDefaultDeploymentStillWaitsForTheFirstAttempt(Vertx vertx, VertxTestContext ctx) {
    SlowLister server = new SlowLister(1);
    McpServerVerticle verticle = new McpServerVerticle(server.transports(), McpServerVerticle.STABLE_AFTER_MS);
    vertx.deployVerticle(verticle, new DeploymentOptions().setConfig(options("waited", 200).toJson()))
      .compose(id -> {
        ctx.verify(() -> assertTrue(verticle.firstAttempt().succeeded()));
        return ask(vertx, "waited", Actions.STATUS, new JsonObject());
      })
      .onComplete(ctx.succeeding(status -> ctx.verify(() -> {
        assertTrue(List.of("RESTARTING", "READY").contains(status.getString("status")), status.encode());
        assertTrue(status.getString("detail", "").contains("not ready within 200 ms")
          || "READY".equals(status.getString("status")), status.encode());
        ctx.completeNow();
      })));
  }
}
