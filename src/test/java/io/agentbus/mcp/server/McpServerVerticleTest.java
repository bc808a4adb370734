package io.agentbus.mcp.server;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.FakeStdioServer;
import io.agentbus.testing.InteropServers;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One verticle per MCP server: the bus contract, filtering, caps and supervision. */
@Integration
@ExtendWith(VertxExtension.class)
class McpServerVerticleTest {

  private static Future<String> deploy(Vertx vertx, McpServerOptions options) {
    return vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(options.toJson()));
  }

  private static Future<JsonObject> ask(Vertx vertx, String server, String action, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), body,
      new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(60_000)).map(m -> m.body());
  }

  private static JsonObject call(String tool, JsonObject args) {
    return new JsonObject().put("name", tool).put("arguments", args);
  }

  private static ReplyException reply(Throwable err) {
    return assertInstanceOf(ReplyException.class, err);
  }

  /** Completes with the first published status document that matches. */
  private static Future<JsonObject> statusEvent(Vertx vertx, String server, java.util.function.Predicate<JsonObject> match) {
    Promise<JsonObject> p = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.mcpStatus(server));
    consumer.handler(m -> {
      if (match.test(m.body())) {
        consumer.unregister();
        p.tryComplete(m.body());
      }
    });
    return p.future();
  }

  @Test
  void servesToolsFilteredByConfiguration(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = InteropServers.everythingStdio("ev").setAllowedTools(List.of("echo", "get-*"))
      .setDisabledTools(List.of("get-env"));
    deploy(vertx, options)
      .compose(id -> ask(vertx, "ev", Actions.TOOLS_LIST, new JsonObject()))
      .compose(list -> {
        Set<String> names = list.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).collect(Collectors.toSet());
        ctx.verify(() -> {
          assertEquals("READY", list.getString("status"));
          assertTrue(names.containsAll(Set.of("echo", "get-sum", "get-tiny-image")), names::toString);
          assertFalse(names.contains("get-env"));
          assertTrue(names.stream().allMatch(n -> n.equals("echo") || n.startsWith("get-")), names::toString);
        });
        return ask(vertx, "ev", Actions.TOOLS_CALL, call("get-env", new JsonObject()));
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.FORBIDDEN, reply(err).failureCode());
        ask(vertx, "ev", Actions.TOOLS_CALL, call("echo", new JsonObject().put("message", "bus")))
          .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
            assertEquals("Echo: bus", result.getJsonArray("content").getJsonObject(0).getString("text"));
            ctx.completeNow();
          })));
      })));
  }

  @Test
  void badRequestsAreRefusedClearly(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, InteropServers.javaMain("f1", FakeStdioServer.class, "plain"))
      .compose(id -> ask(vertx, "f1", "tools/delete", new JsonObject()))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.NOT_FOUND, reply(err).failureCode());
        ask(vertx, "f1", Actions.TOOLS_CALL, new JsonObject().put("name", 5))
          .onComplete(ctx.failing(err2 -> ctx.verify(() -> {
            assertEquals(FailureCodes.BAD_REQUEST, reply(err2).failureCode());
            assertTrue(err2.getMessage().contains("'name'"));
            ctx.completeNow();
          })));
      })));
  }

  @Test
  void callsBeyondTheConcurrencyCapQueueThenOverflowClearly(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = InteropServers.javaMain("capped", FakeStdioServer.class, "plain")
      .setMaxConcurrentCalls(1).setMaxQueuedCalls(1);
    deploy(vertx, options).onComplete(ctx.succeeding(id -> {
      Future<JsonObject> running = ask(vertx, "capped", Actions.TOOLS_CALL, call("hang", new JsonObject()).put("timeoutMs", 20_000));
      Future<JsonObject> queued = ask(vertx, "capped", Actions.TOOLS_CALL, call("echo", new JsonObject().put("message", "q")));
      ask(vertx, "capped", Actions.TOOLS_CALL, call("echo", new JsonObject())).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.QUEUE_FULL, reply(err).failureCode());
        ask(vertx, "capped", Actions.STATUS, new JsonObject()).onComplete(ctx.succeeding(status -> ctx.verify(() -> {
          assertEquals(1, status.getInteger("runningCalls"));
          assertEquals(1, status.getInteger("queuedCalls"));
          assertFalse(running.isComplete() || queued.isComplete());
          ctx.completeNow();
        })));
      })));
    }));
  }

  @Test
  void callsFarBeyondTheConcurrencyCapWaitForASlotAndAllSucceed(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = InteropServers.javaMain("narrow", FakeStdioServer.class, "plain").setMaxConcurrentCalls(2);
    int calls = 300;
    deploy(vertx, options).onComplete(ctx.succeeding(id -> {
      List<Future<JsonObject>> results = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        results.add(ask(vertx, "narrow", Actions.TOOLS_CALL, call("echo", new JsonObject().put("message", "m" + i))));
      }
      Future.join(results).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        for (int i = 0; i < calls; i++) {
          String text = results.get(i).result().getJsonArray("content").getJsonObject(0).getString("text");
          assertEquals("Echo: m" + i, text);
        }
        ctx.completeNow();
      })));
    }));
  }

  @Test
  void killedServerFailsTheCallThenComesBack(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = InteropServers.everythingStdio("phoenix").setRestartInitialBackoffMs(100);
    String progressAddress = "test.progress." + System.nanoTime();
    Promise<Void> firstProgress = Promise.promise();
    vertx.eventBus().localConsumer(progressAddress, m -> firstProgress.tryComplete());
    deploy(vertx, options).onComplete(ctx.succeeding(id -> {
      Future<JsonObject> back = statusEvent(vertx, "phoenix", s -> "READY".equals(s.getString("status")) && s.getLong("restarts") == 1);
      Future<JsonObject> longCall = ask(vertx, "phoenix", Actions.TOOLS_CALL,
        call("trigger-long-running-operation", new JsonObject().put("duration", 30).put("steps", 30))
          .put("progressAddress", progressAddress));
      firstProgress.future()
        .compose(v -> ask(vertx, "phoenix", Actions.STATUS, new JsonObject()))
        .onComplete(ctx.succeeding(status -> {
          long pid = status.getJsonObject("connection").getLong("pid");
          ProcessHandle.of(pid).orElseThrow().destroyForcibly();
        }));
      longCall.onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.UNAVAILABLE, reply(err).failureCode());
        assertTrue(err.getMessage().contains("server 'phoenix' exited (code 137)"), err.getMessage());
        back.compose(s -> ask(vertx, "phoenix", Actions.TOOLS_CALL, call("echo", new JsonObject().put("message", "again"))))
          .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
            assertEquals("Echo: again", result.getJsonArray("content").getJsonObject(0).getString("text"));
            ctx.completeNow();
          })));
      })));
    }));
  }

  @Test
  void repeatedStartFailuresMarkTheServerDownAndCallsFailAtOnce(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = new McpServerOptions().setName("ghost").setCommand("/nonexistent/mcp-server")
      .setRestartInitialBackoffMs(20).setRestartMaxBackoffMs(100).setDownAfterFailures(2);
    Future<JsonObject> down = statusEvent(vertx, "ghost", s -> "DOWN".equals(s.getString("status")));
    deploy(vertx, options)
      .compose(id -> down)
      .compose(status -> {
        ctx.verify(() -> assertTrue(status.getString("detail").contains("cannot start server 'ghost'"), status::toString));
        return ask(vertx, "ghost", Actions.TOOLS_CALL, call("echo", new JsonObject()));
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.UNAVAILABLE, reply(err).failureCode());
        assertTrue(err.getMessage().startsWith(McpServerVerticle.NOT_STARTED + "server 'ghost' is down"), err.getMessage());
        ctx.completeNow();
      })));
  }

  @Test
  void undeployStopsTheChild(Vertx vertx, VertxTestContext ctx) {
    deploy(vertx, InteropServers.javaMain("stopper", FakeStdioServer.class, "plain"))
      .compose(id -> ask(vertx, "stopper", Actions.STATUS, new JsonObject()).compose(status -> {
        long pid = status.getJsonObject("connection").getLong("pid");
        return vertx.undeploy(id).map(pid);
      }))
      .onComplete(ctx.succeeding(pid -> ctx.verify(() -> {
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
        ctx.completeNow();
      })));
  }
}
