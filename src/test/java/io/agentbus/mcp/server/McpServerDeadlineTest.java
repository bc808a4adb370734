package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.InMemoryMcpServer;
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
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The server verticle over an in-memory MCP server: one deadline per call (budget, queueing,
 * progress), honest "not started" failures, waiting for READY, and the stable-period reset of
 * the failure count.
 */
@ExtendWith(VertxExtension.class)
class McpServerDeadlineTest {

  private static Future<String> deploy(Vertx vertx, InMemoryMcpServer server, McpServerOptions options, long stableAfterMs) {
    return vertx.deployVerticle(new McpServerVerticle(server.transports(), stableAfterMs),
      new DeploymentOptions().setConfig(options.toJson()));
  }

  private static McpServerOptions options(String name) {
    return new McpServerOptions().setName(name).setCommand("unused-in-memory");
  }

  private static Future<JsonObject> ask(Vertx vertx, String server, String action, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp(server), body,
      new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(60_000)).map(m -> m.body());
  }

  private static JsonObject call(String tool) {
    return new JsonObject().put("name", tool).put("arguments", new JsonObject().put("message", "hi"));
  }

  private static ReplyException reply(Throwable err) {
    return assertInstanceOf(ReplyException.class, err);
  }

  private static long msSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1_000_000L;
  }

  /** Completes with the first published status document that matches. */
  private static Future<JsonObject> statusEvent(Vertx vertx, String server, Predicate<JsonObject> match) {
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

  /** A tool that reports progress every {@code everyMs}, {@code times} times, then answers (or never, if times < 0). */
  private static void progressing(Vertx vertx, InMemoryMcpServer.Call call, long everyMs, int times) {
    int[] n = {0};
    vertx.setPeriodic(everyMs, id -> {
      n[0]++;
      if (times >= 0 && n[0] > times) {
        vertx.cancelTimer(id);
        call.text("done after " + times + " updates");
      } else if (n[0] > 200) {
        vertx.cancelTimer(id);
      } else {
        call.progress(n[0], times >= 0 ? (double) times : null, "step " + n[0]);
      }
    });
  }

  @Test
  void progressRestartsTheTimeoutOfEveryCallEvenWithoutAProgressListener(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("prog")
      .tool("slow", (v, call) -> progressing(v, call, 100, 8));
    deploy(vertx, server, options("prog").setTimeoutMs(400).setMaxTotalTimeoutMs(10_000), 3_000)
      .compose(id -> ask(vertx, "prog", Actions.TOOLS_CALL, call("slow")))
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertEquals("done after 8 updates", result.getJsonArray("content").getJsonObject(0).getString("text"));
        JsonObject sent = server.received("tools/call").get(0);
        assertNotNull(sent.getJsonObject("params").getJsonObject("_meta").getValue("progressToken"), sent::encode);
        ctx.completeNow();
      })));
  }

  @Test
  void progressNeverCarriesACallPastItsBudget(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("endless")
      .tool("forever", (v, call) -> progressing(v, call, 100, -1));
    long[] start = new long[1];
    deploy(vertx, server, options("endless").setTimeoutMs(400), 3_000)
      .compose(id -> {
        start[0] = System.nanoTime();
        return ask(vertx, "endless", Actions.TOOLS_CALL, call("forever").put("budgetMs", 1_200));
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        long took = msSince(start[0]);
        assertEquals(FailureCodes.TIMEOUT, reply(err).failureCode());
        assertFalse(err.getMessage().startsWith(McpServerVerticle.NOT_STARTED), err.getMessage());
        assertTrue(took >= 1_100 && took < 4_000, "took " + took + " ms");
        assertEquals(1, server.received("notifications/cancelled").size(), "the server is told to stop");
        ctx.completeNow();
      })));
  }

  @Test
  void theCallersBudgetBoundsAHangingCallInsteadOfTheServersTimeout(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("hangs").tool("hang", (v, call) -> { });
    long[] start = new long[1];
    deploy(vertx, server, options("hangs").setTimeoutMs(60_000), 3_000)
      .compose(id -> {
        start[0] = System.nanoTime();
        return ask(vertx, "hangs", Actions.TOOLS_CALL, call("hang").put("budgetMs", 500));
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        long took = msSince(start[0]);
        assertEquals(FailureCodes.TIMEOUT, reply(err).failureCode());
        assertTrue(err.getMessage().contains("tools/call to server 'hangs' timed out"), err.getMessage());
        assertTrue(took >= 450 && took < 5_000, "took " + took + " ms");
        ctx.completeNow();
      })));
  }

  @Test
  void waitingForASlotSpendsTheSameBudgetAndSaysTheCallNeverStarted(Vertx vertx, VertxTestContext ctx) {
    List<String> started = new ArrayList<>();
    InMemoryMcpServer server = new InMemoryMcpServer("narrow").tool("hang", (v, call) -> started.add("hang"));
    deploy(vertx, server, options("narrow").setMaxConcurrentCalls(1), 3_000).onComplete(ctx.succeeding(id -> {
      ask(vertx, "narrow", Actions.TOOLS_CALL, call("hang").put("budgetMs", 20_000));
      long start = System.nanoTime();
      ask(vertx, "narrow", Actions.TOOLS_CALL, call("echo").put("budgetMs", 300)).onComplete(ctx.failing(err -> ctx.verify(() -> {
        long took = msSince(start);
        assertEquals(FailureCodes.TIMEOUT, reply(err).failureCode());
        assertTrue(err.getMessage().startsWith(McpServerVerticle.NOT_STARTED), err.getMessage());
        assertTrue(took >= 250 && took < 3_000, "took " + took + " ms");
        assertEquals(1, server.received("tools/call").size(), "the queued call was never sent");
        ctx.completeNow();
      })));
    }));
  }

  @Test
  void callsWaitForReadyWhileTheServerRestarts(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("phoenix");
    server.failStarts.set(2);
    deploy(vertx, server, options("phoenix").setRestartInitialBackoffMs(100), 3_000)
      .compose(id -> ask(vertx, "phoenix", Actions.STATUS, new JsonObject()))
      .compose(status -> {
        ctx.verify(() -> assertEquals("RESTARTING", status.getString("status")));
        return ask(vertx, "phoenix", Actions.TOOLS_CALL, call("echo").put("budgetMs", 10_000));
      })
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        assertEquals("Echo: hi", result.getJsonArray("content").getJsonObject(0).getString("text"));
        assertEquals(3, server.starts.get());
        ctx.completeNow();
      })));
  }

  @Test
  void callsQueuedWhenTheServerDiesWaitForTheRestart(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("lazarus").tool("hang", (v, call) -> { });
    deploy(vertx, server, options("lazarus").setMaxConcurrentCalls(1).setRestartInitialBackoffMs(100), 3_000)
      .onComplete(ctx.succeeding(id -> {
        Future<JsonObject> running = ask(vertx, "lazarus", Actions.TOOLS_CALL, call("hang").put("budgetMs", 10_000));
        Future<JsonObject> queued = ask(vertx, "lazarus", Actions.TOOLS_CALL, call("echo").put("budgetMs", 10_000));
        vertx.setTimer(100, t -> server.crash());
        running.onComplete(ctx.failing(err -> ctx.verify(() -> {
          // it was sent: its outcome is unknown, so no "not started"
          assertEquals(FailureCodes.UNAVAILABLE, reply(err).failureCode());
          assertFalse(err.getMessage().startsWith(McpServerVerticle.NOT_STARTED), err.getMessage());
          queued.onComplete(ctx.succeeding(result -> ctx.verify(() -> {
            assertEquals("Echo: hi", result.getJsonArray("content").getJsonObject(0).getString("text"));
            ctx.completeNow();
          })));
        })));
      }));
  }

  @Test
  void aServerThatGoesDownFailsTheWaitingCallsAtOnceSayingTheyNeverStarted(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("ghost");
    server.failStarts.set(1_000);
    long[] start = new long[1];
    deploy(vertx, server, options("ghost").setRestartInitialBackoffMs(50).setRestartMaxBackoffMs(60_000)
      .setDownAfterFailures(3), 3_000)
      .compose(id -> {
        start[0] = System.nanoTime();
        return ask(vertx, "ghost", Actions.TOOLS_CALL, call("echo").put("budgetMs", 30_000));
      })
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertEquals(FailureCodes.UNAVAILABLE, reply(err).failureCode());
        assertTrue(err.getMessage().startsWith(McpServerVerticle.NOT_STARTED + "server 'ghost' is down"), err.getMessage());
        assertTrue(msSince(start[0]) < 10_000);
        ask(vertx, "ghost", Actions.TOOLS_CALL, call("echo")).onComplete(ctx.failing(again -> ctx.verify(() -> {
          assertTrue(again.getMessage().startsWith(McpServerVerticle.NOT_STARTED + "server 'ghost' is down"), again.getMessage());
          ctx.completeNow();
        })));
      })));
  }

  @Test
  void aServerThatStaysReadyForTheStablePeriodStartsCountingFailuresAfresh(Vertx vertx, VertxTestContext ctx) {
    InMemoryMcpServer server = new InMemoryMcpServer("healthy");
    server.failStarts.set(2);
    McpServerOptions options = options("healthy").setRestartInitialBackoffMs(20).setRestartMaxBackoffMs(60_000)
      .setDownAfterFailures(3);
    Future<JsonObject> reset = statusEvent(vertx, "healthy",
      s -> "READY".equals(s.getString("status")) && s.getInteger("consecutiveFailures") == 0);
    deploy(vertx, server, options, 200)
      .compose(id -> reset)
      .compose(status -> crashWhenStable(vertx, server, 5))
      .compose(v -> ask(vertx, "healthy", Actions.STATUS, new JsonObject()))
      .onComplete(ctx.succeeding(status -> ctx.verify(() -> {
        // five kills of a healthy server: never DOWN, never more than one failure in a row
        assertEquals("READY", status.getString("status"), status::encode);
        assertEquals(0, status.getInteger("consecutiveFailures"), status::encode);
        assertEquals(7L, status.getLong("restarts"), status::encode);
        ctx.completeNow();
      })));
  }

  /** Kills the server {@code times} times, each time once it has been stable again. */
  private static Future<Void> crashWhenStable(Vertx vertx, InMemoryMcpServer server, int times) {
    if (times == 0) {
      return Future.succeededFuture();
    }
    Future<JsonObject> restarting = statusEvent(vertx, "healthy", s -> "RESTARTING".equals(s.getString("status")));
    Future<JsonObject> stableAgain = restarting.compose(r -> {
      if (r.getInteger("consecutiveFailures") != 1) {
        return Future.failedFuture("a kill of a stable server is failure " + r.getInteger("consecutiveFailures") + " in a row");
      }
      return statusEvent(vertx, "healthy", s -> "READY".equals(s.getString("status")) && s.getInteger("consecutiveFailures") == 0);
    });
    server.crash();
    return stableAgain.compose(s -> crashWhenStable(vertx, server, times - 1));
  }
}
