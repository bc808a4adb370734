package io.agentbus.http;

import static io.agentbus.http.ApprovalFixture.ALICE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.testing.Integration;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * No leak: 1,000 turns whose approval nobody answers (each times out after 20 ms, over the HTTP
 * API with the real stdio server) leave the heap, the running turns and the conversations in
 * memory at their baseline, and no turn's approvals address registered.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ApprovalLeakTest {

  static final int ABANDONED = 1_000;
  static final int PARALLEL = 20;
  /** Heap growth allowed after GC: far below what 1,000 retained turns with their approvals would hold. */
  static final long HEAP_SLACK_BYTES = 1_500_000;
  static ApprovalFixture fx;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    ApprovalFixture.start(vertx, 20).onComplete(ctx.succeeding(f -> {
      fx = f;
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    fx.close().onComplete(ctx.succeedingThenComplete());
  }

  /** One abandoned turn in a new conversation, which is deleted afterwards; @return its id */
  private static Future<String> abandonedTurn() {
    return fx.create(ALICE).compose(id -> fx.send(id, ALICE, "TIMEOUT: nobody answers").compose(done -> {
      JsonObject result = done.bodyAsJsonObject();
      if (done.statusCode() != 200 || !result.getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError")) {
        return Future.failedFuture("turn not abandoned as expected: " + done.statusCode() + " " + done.bodyAsString());
      }
      return fx.request(HttpMethod.DELETE, "/v1/conversations/" + id, ALICE).send().map(deleted -> id);
    }));
  }

  /** Runs {@code n} abandoned turns, {@link #PARALLEL} at a time; @return their conversation ids */
  private static Future<List<String>> abandon(int n) {
    List<String> ids = new ArrayList<>();
    int[] started = {0};
    List<Future<Void>> workers = new ArrayList<>();
    for (int w = 0; w < PARALLEL; w++) {
      Promise<Void> worker = Promise.promise();
      workers.add(worker.future());
      next(n, started, ids, worker);
    }
    return Future.all(workers).map(v -> ids);
  }

  private static void next(int n, int[] started, List<String> ids, Promise<Void> worker) {
    if (started[0] >= n) {
      worker.complete();
      return;
    }
    started[0]++;
    abandonedTurn().onSuccess(id -> {
      ids.add(id);
      next(n, started, ids, worker);
    }).onFailure(worker::fail);
  }

  private record Level(long heapBytes, double runningTurns, double conversations, double httpInFlight, double waiting,
                       double timedOut) {
  }

  /** Measured on a worker thread: collecting garbage blocks the caller. */
  private static Future<Level> level(Vertx vertx) {
    var registry = AgentbusMetrics.get(vertx).registry();
    return vertx.executeBlocking(() -> {
      MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
      long least = Long.MAX_VALUE;
      for (int i = 0; i < 4; i++) {
        System.gc();
        least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
      }
      return new Level(least, registry.get("agentbus.turns.running").gauge().value(),
        registry.get("agentbus.conversations.active").gauge().value(),
        registry.get("agentbus.http.turns.in.flight").gauge().value(),
        registry.get("agentbus.tool.approvals.waiting").gauge().value(),
        registry.get("agentbus.tool.approvals").tag("outcome", "timeout").counter().count());
    });
  }

  @Test
  void abandonedApprovalsLeaveNothingBehind(Vertx vertx, VertxTestContext ctx) {
    List<Level> levels = new ArrayList<>();
    abandon(100) // warms up the JIT, the pools and the meters
      .compose(warm -> level(vertx)).compose(before -> {
        levels.add(before);
        return abandon(ABANDONED);
      })
      .compose(ids -> level(vertx).compose(after -> {
        levels.add(after);
        // no turn's approvals address is left registered
        DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, Actions.APPROVALS).setSendTimeout(5_000);
        List<Future<?>> probes = new ArrayList<>();
        for (String id : ids) {
          probes.add(vertx.eventBus().request(Addresses.conversationApprovals(id), new JsonObject(), delivery)
            .transform(ar -> ar.failed() && ar.cause() instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS
              ? Future.succeededFuture() : Future.failedFuture("conversation " + id + " still takes approvals")));
        }
        return Future.all(probes).map(v -> ids);
      }))
      .onComplete(ctx.succeeding(ids -> ctx.verify(() -> {
        Level before = levels.get(0);
        Level after = levels.get(1);
        assertEquals(ABANDONED, ids.size());
        assertEquals(before.runningTurns(), after.runningTurns(), "running turns");
        assertEquals(0.0, after.runningTurns(), "running turns");
        assertEquals(before.conversations(), after.conversations(), "conversations in memory");
        assertEquals(before.httpInFlight(), after.httpInFlight(), "HTTP turns in flight");
        assertEquals(0.0, after.waiting(), "approvals waiting");
        assertEquals(ABANDONED, after.timedOut() - before.timedOut(), "approvals timed out");
        long grown = after.heapBytes() - before.heapBytes();
        assertTrue(grown < HEAP_SLACK_BYTES, "heap grew by " + grown + " bytes over " + ABANDONED
          + " abandoned approvals (before " + before.heapBytes() + ", after " + after.heapBytes() + ")");
        System.out.println("approval leak check: heap " + before.heapBytes() + " -> " + after.heapBytes() + " bytes");
        ctx.completeNow();
      })));
  }
}
