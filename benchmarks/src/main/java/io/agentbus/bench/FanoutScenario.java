package io.agentbus.bench;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.catalog.CatalogVerticle;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.dispatch.DispatcherVerticle;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * K tool calls of T ms each through the real dispatcher and MCP server verticles, against
 * {@link BenchMcpServer} in a child process. Per K it measures:
 * <ul>
 *   <li>{@code parallel}: one dispatch of K tool_use blocks (goal: batch time / T &lt;= 1.1);</li>
 *   <li>{@code sequential}: K dispatches of one tool_use each, one after the other (baseline);</li>
 *   <li>{@code direct}: K {@code tools/call} sent straight to the server verticle at once;</li>
 *   <li>overhead: the same with the {@code noop} tool, dispatcher minus direct, per call.</li>
 * </ul>
 * Each measured batch starts when the previous one ended; timing runs on the event loop,
 * after a global warm-up of both JVMs (about 3 s). The goal applies to K &gt; 1 (K = 1 has no fan-out).
 */
final class FanoutScenario {

  private static final String SERVER = "bench";
  private final long tMs;
  private final List<Integer> ks;
  private final int reps;
  private final int warmup;
  private final int noopReps;
  private final int globalWarmup;
  /** The JSON rows of the last run. */
  final List<Row> rows = new ArrayList<>();
  private Vertx vertx;
  private Context context;

  FanoutScenario(long tMs, List<Integer> ks, int reps, int warmup, int noopReps, int globalWarmup) {
    this.globalWarmup = globalWarmup;
    this.tMs = tMs;
    this.ks = ks;
    this.reps = reps;
    this.warmup = warmup;
    this.noopReps = noopReps;
  }

  boolean run() throws Exception {
    vertx = Vertx.vertx();
    try {
      setUp();
      System.out.printf(Locale.ROOT, "fanout: T=%d ms, reps=%d (warmup %d), noop reps=%d, %d cores%n", tMs, reps, warmup,
        noopReps, Runtime.getRuntime().availableProcessors());
      System.out.printf(Locale.ROOT, "%3s  %-10s %10s %10s %10s %12s%n", "K", "mode", "median_ms", "p90_ms", "min_ms", "batch/T");
      // Both JVMs (this one and the server child) start cold: JIT-compile the whole path first,
      // or the first K measured pays for it.
      measure(() -> dispatch(8, "noop", 0), 0, globalWarmup);
      measure(() -> direct(8, "noop", 0), 0, globalWarmup);
      measure(() -> dispatch(3, "sleep", tMs), 0, Math.max(1, globalWarmup / 50));
      List<String> json = new ArrayList<>();
      boolean goal = true;
      for (int k : ks) {
        Stats parallel = measure(() -> dispatch(k, "sleep", tMs), warmup, reps);
        Stats sequential = measure(() -> sequential(k, 0), warmup, reps);
        Stats direct = measure(() -> direct(k, "sleep", tMs), warmup, reps);
        // Interleaved so that load from elsewhere hits both alike.
        Stats[] noop = measurePair(() -> dispatch(k, "noop", 0), () -> direct(k, "noop", 0));
        Stats dispatchNoop = noop[0];
        Stats directNoop = noop[1];
        double overheadUs = (dispatchNoop.medianUs() - directNoop.medianUs()) / k;
        goal &= k == 1 || parallel.medianMs() / tMs <= 1.1;
        for (var row : List.of(new Object[] {"parallel", parallel}, new Object[] {"sequential", sequential}, new Object[] {"direct", direct})) {
          Stats s = (Stats) row[1];
          System.out.printf(Locale.ROOT, "%3d  %-10s %10.2f %10.2f %10.2f %12.3f%n", k, row[0], s.medianMs(), s.p90Ms(), s.minMs(), s.medianMs() / tMs);
          json.add(String.format(Locale.ROOT, "{\"bench\":\"fanout\",\"k\":%d,\"mode\":\"%s\",\"tMs\":%d,\"reps\":%d,"
            + "\"medianMs\":%.3f,\"p90Ms\":%.3f,\"minMs\":%.3f,\"ratio\":%.4f}", k, row[0], tMs, reps, s.medianMs(), s.p90Ms(), s.minMs(), s.medianMs() / tMs));
        }
        System.out.printf(Locale.ROOT, "%3d  %-10s dispatcher %.0f us vs direct %.0f us per noop batch -> %.1f us per call%n",
          k, "overhead", dispatchNoop.medianUs(), directNoop.medianUs(), overheadUs);
        json.add(String.format(Locale.ROOT, "{\"bench\":\"fanout\",\"k\":%d,\"mode\":\"overhead\",\"reps\":%d,"
          + "\"dispatchNoopMedianUs\":%.1f,\"directNoopMedianUs\":%.1f,\"overheadPerCallUs\":%.1f}", k, reps, dispatchNoop.medianUs(), directNoop.medianUs(), overheadUs));
      }
      System.out.println("goal batch/T <= 1.1 for every K > 1: " + (goal ? "met" : "NOT met"));
      json.forEach(line -> rows.add(new Row(new JsonObject(line), new JsonArray())));
      return goal;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  private void setUp() throws Exception {
    List<String> cmd = Child.javaCommand(BenchMcpServer.class, List.of());
    McpServerOptions server = new McpServerOptions().setName(SERVER).setCommand(cmd.get(0))
      .setArgs(cmd.subList(1, cmd.size())).setMaxConcurrentCalls(64);
    ToolCatalog catalog = new ToolCatalog();
    vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(server.toJson()))
      .compose(id -> vertx.deployVerticle(new CatalogVerticle(catalog, List.of(SERVER))))
      .compose(id -> vertx.deployVerticle(new DispatcherVerticle(catalog, null)))
      .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    if (catalog.current().byName("mcp__bench__sleep") == null) {
      throw new IllegalStateException("the bench server's tools are not in the catalog");
    }
    context = vertx.getOrCreateContext();
  }

  private Future<?> dispatch(int k, String tool, long ms) {
    JsonArray content = new JsonArray();
    for (int i = 0; i < k; i++) {
      content.add(new JsonObject().put("type", "tool_use").put("id", "call_" + i).put("name", "mcp__bench__" + tool)
        .put("input", new JsonObject().put("ms", ms)));
    }
    JsonObject body = new JsonObject().put("provider", "anthropic").put("content", content);
    return vertx.eventBus().<JsonObject>request(Addresses.DISPATCH, body, new DeliveryOptions()
      .addHeader(Actions.HEADER, Actions.DISPATCH)).map(m -> check(m.body(), k));
  }

  private static JsonObject check(JsonObject reply, int k) {
    JsonArray content = reply.getJsonArray("content");
    if (content.size() != k || content.stream().anyMatch(r -> ((JsonObject) r).getBoolean("is_error"))) {
      throw new IllegalStateException("unexpected reply " + reply.encode());
    }
    return reply;
  }

  private Future<?> sequential(int k, int done) {
    return done == k ? Future.succeededFuture() : dispatch(1, "sleep", tMs).compose(v -> sequential(k, done + 1));
  }

  private Future<?> direct(int k, String tool, long ms) {
    List<Future<?>> calls = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      calls.add(vertx.eventBus().request(Addresses.mcp(SERVER), new JsonObject().put("name", tool)
        .put("arguments", new JsonObject().put("ms", ms)), new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL)));
    }
    return Future.join(calls);
  }

  /** Alternates batches of {@code a} and {@code b}, noopReps of each after as many warmups. */
  private Stats[] measurePair(Supplier<Future<?>> a, Supplier<Future<?>> b) throws Exception {
    long[] both = new long[2 * noopReps];
    Promise<Void> done = Promise.promise();
    boolean[] flip = {false};
    Supplier<Future<?>> alternating = () -> (flip[0] = !flip[0]) ? a.get() : b.get();
    context.runOnContext(v -> next(alternating, 0, 2 * noopReps, 2 * noopReps, both, done));
    done.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
    long[] first = new long[noopReps];
    long[] second = new long[noopReps];
    for (int i = 0; i < noopReps; i++) {
      first[i] = both[2 * i];
      second[i] = both[2 * i + 1];
    }
    return new Stats[] {new Stats(first), new Stats(second)};
  }

  /** Runs warmup + reps batches one after the other on the event loop. */
  private Stats measure(Supplier<Future<?>> batch, int warmup, int reps) throws Exception {
    long[] nanos = new long[reps];
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> next(batch, 0, warmup, reps, nanos, done));
    done.future().toCompletionStage().toCompletableFuture().get(10, TimeUnit.MINUTES);
    return new Stats(nanos);
  }

  private void next(Supplier<Future<?>> batch, int i, int warmup, int reps, long[] nanos, Promise<Void> done) {
    if (i == warmup + reps) {
      done.complete();
      return;
    }
    long start = System.nanoTime();
    batch.get().onComplete(ar -> {
      if (ar.failed()) {
        done.fail(ar.cause());
        return;
      }
      if (i >= warmup) {
        nanos[i - warmup] = System.nanoTime() - start;
      }
      next(batch, i + 1, warmup, reps, nanos, done);
    });
  }

  private record Stats(long[] sorted) {
    Stats {
      sorted = sorted.clone();
      Arrays.sort(sorted);
    }

    double medianUs() {
      int n = sorted.length;
      return (n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0) / 1_000.0;
    }

    double medianMs() {
      return medianUs() / 1_000.0;
    }

    double p90Ms() {
      return sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] / 1_000_000.0;
    }

    double minMs() {
      return sorted[0] / 1_000_000.0;
    }
  }
}
