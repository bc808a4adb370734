package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.FailureCodes;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Calls beyond the slots wait within their deadline instead of failing. */
@ExtendWith(VertxExtension.class)
class CallGateTest {

  @Test
  void manyMoreCallsThanSlotsAllCompleteWithinTheirDeadline(Vertx vertx, VertxTestContext ctx) {
    int slots = 4;
    int calls = 500;
    long timeoutMs = 30_000;
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostRunning = new AtomicInteger();
    List<Long> timeoutsGiven = new ArrayList<>();
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> {
      CallGate gate = new CallGate(vertx, "busy", slots, McpServerOptions.DEFAULT_MAX_QUEUED_CALLS);
      List<Future<JsonObject>> results = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        int n = i;
        results.add(gate.submit(leftMs -> {
          timeoutsGiven.add(leftMs);
          mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
          Promise<JsonObject> done = Promise.promise();
          vertx.setTimer(2, t -> {
            running.decrementAndGet();
            done.complete(new JsonObject().put("n", n));
          });
          return done.future();
        }, timeoutMs));
      }
      ctx.verify(() -> assertEquals(calls - slots, gate.queued()));
      Future.join(results).onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        for (int i = 0; i < calls; i++) {
          assertEquals(i, results.get(i).result().getInteger("n"), "call " + i);
        }
        assertEquals(slots, mostRunning.get());
        assertEquals(calls, timeoutsGiven.size());
        assertEquals(timeoutMs, timeoutsGiven.get(0));
        assertTrue(timeoutsGiven.stream().allMatch(t -> t >= 1 && t <= timeoutMs), timeoutsGiven::toString);
        assertEquals(0, gate.queued());
        assertEquals(0, gate.running());
        ctx.completeNow();
      })));
    });
  }

  @Test
  void aQueuedCallWhoseDeadlinePassesFailsWithATimeoutNamingTheServer(Vertx vertx, VertxTestContext ctx) {
    AtomicBoolean lateCallStarted = new AtomicBoolean();
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> {
      CallGate gate = new CallGate(vertx, "slowpoke", 1, McpServerOptions.DEFAULT_MAX_QUEUED_CALLS);
      Promise<JsonObject> stuck = Promise.promise();
      Future<JsonObject> first = gate.submit(leftMs -> stuck.future(), 60_000);
      Future<JsonObject> late = gate.submit(leftMs -> {
        lateCallStarted.set(true);
        return Future.succeededFuture(new JsonObject());
      }, 100);
      Future<JsonObject> next = gate.submit(leftMs -> Future.succeededFuture(new JsonObject().put("ran", leftMs > 100)), 60_000);
      late.onComplete(ctx.failing(err -> ctx.verify(() -> {
        ReplyException re = assertInstanceOf(ReplyException.class, err);
        assertEquals(FailureCodes.TIMEOUT, re.failureCode());
        assertTrue(re.getMessage().contains("server 'slowpoke'"), re.getMessage());
        assertTrue(re.getMessage().contains("100 ms"), re.getMessage());
        assertEquals(1, gate.queued());
        stuck.complete(new JsonObject());
        Future.all(first, next).onComplete(ctx.succeeding(done -> ctx.verify(() -> {
          assertFalse(lateCallStarted.get(), "a call whose deadline passed must never start");
          assertTrue(next.result().getBoolean("ran"));
          assertEquals(0, gate.running());
          ctx.completeNow();
        })));
      })));
    });
  }
}
