package io.agentbus.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cluster-tools} (issue 14, opt-in): what a tool call costs when its MCP server runs on
 * another node of the cluster instead of the conversation's own. One two-node cluster of
 * {@code serve --cluster} processes: node B (all roles) runs the bench MCP server under the name
 * {@code local}, node A ({@code --roles mcp}) runs the same server under the name {@code bench};
 * every conversation goes to B's HTTP API and offers either {@code mcp__local__t0..} (the calls
 * stay in B) or {@code mcp__bench__t0..} (each call crosses to A over the clustered event bus
 * and back). Same cluster, same node, same store, same model calls: the tools' address is the
 * only difference, so the difference of the two is the cost of the cross-node hop.
 *
 * <ul>
 *   <li><b>CPU under load:</b> closed loop at {@code --c} (32) with {@code --k} (8) tools per
 *   turn, phases of {@code --seconds} alternating local and remote in ABBA order over
 *   {@code --repeat} (2) rounds; CPU is the sum of both nodes' processes. Per round:
 *   (remote - local) CPU per conversation / K = CPU per cross-node call, both ends together.</li>
 *   <li><b>Latency:</b> one conversation at a time with {@code --latency-k} (1) tool,
 *   {@code --latency-n} (2000) pairs, local and remote interleaved: (remote - local) median /
 *   latency-k = wall time added per cross-node call.</li>
 * </ul>
 * Warm-up {@code --warmup-seconds} (15) per variant, then until the JIT settles (at most
 * {@code --jit-settle-seconds}, 90). {@code --store memory} (default; one conversation node
 * needs no shared store) or {@code postgres} ({@code serve-postgres}'s).
 */
final class ClusterToolScenario {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterToolScenario.class);
  static final String NAME = "cluster-tools";
  private static final String LOCAL_SERVER = "local";
  private static final String REMOTE_SERVER = AgentbusSubject.SERVER;

  private ClusterToolScenario() {
  }

  static List<String> tools(String server, int k) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < k; i++) {
      names.add("mcp__" + server + "__t" + i);
    }
    return names;
  }

  static List<Row> run(Settings s) throws Exception {
    int k = s.integer("k", 8, 8);
    int latencyK = s.integer("latency-k", 1, 1);
    int c = s.integer("c", 32, 8);
    long seconds = s.number("seconds", 10, 2);
    long warmupSeconds = s.number("warmup-seconds", 15, 2);
    long settleMs = s.number("jit-settle-seconds", 90, 0) * 1000;
    int repeat = s.integer("repeat", 2, 1);
    int latencyN = s.integer("latency-n", 2000, 100);
    String storeType = s.string("store", "memory", "memory");
    JsonObject store = switch (storeType) {
      case "memory" -> new JsonObject().put("type", "memory");
      case "postgres" -> ConversationBench.postgresStore();
      default -> throw new IllegalArgumentException("--store is memory or postgres, not " + storeType);
    };
    Workload w = new Workload(Math.max(k, latencyK), 0, 0, 0, "stdio");
    List<Row> rows = new ArrayList<>();
    List<String> mockArgs = new ArrayList<>(List.of(w.mockOptions().encode(), "2"));
    mockArgs.addAll(FloorProbe.listener().args());
    try (Child mock = Child.start(MockMain.class, mockArgs)) {
      List<BenchCluster.NodeSpec> specs = List.of(
        new BenchCluster.NodeSpec("A", "mcp", new JsonObject().put(REMOTE_SERVER, ServeSubject.benchServer(w, null)), store),
        new BenchCluster.NodeSpec("B", null, new JsonObject().put(LOCAL_SERVER, ServeSubject.benchServer(w, null)), store));
      List<String> all = new ArrayList<>(tools(LOCAL_SERVER, w.k()));
      all.addAll(tools(REMOTE_SERVER, w.k()));
      ClusterServeSubject subject = new ClusterServeSubject(NAME, specs, w, mock.port(), c, all,
        ClusterServeSubject.createBody(tools(LOCAL_SERVER, k)));
      try (subject) {
        LOG.info("{}: K = {} at C = {}, latency K = {}, store {}", NAME, k, c, latencyK, storeType);
        subject.start();
        LoadDriver driver = new LoadDriver(subject);
        for (String mode : List.of("local", "remote")) {
          offer(subject, mode, k);
          LoadDriver.Result warm = driver.run(Integer.MAX_VALUE, c, warmupSeconds * 1000);
          if (warm.failed() > 0) {
            LOG.warn("{} {}: {} warm-up conversations failed, first: {}", NAME, mode, warm.failed(), warm.firstError());
          }
        }
        settleJit(subject, driver, c, k, settleMs);
        List<Row> local = new ArrayList<>();
        List<Row> remote = new ArrayList<>();
        for (int rep = 1; rep <= repeat; rep++) {
          List<String> order = rep % 2 == 1 ? List.of("local", "remote") : List.of("remote", "local");
          for (String mode : order) {
            offer(subject, mode, k);
            Row row = phase(subject, driver, mode, c, k, seconds);
            row.data.put("rep", rep);
            ("local".equals(mode) ? local : remote).add(row);
            rows.add(row);
          }
        }
        List<Double> cpuDeltas = new ArrayList<>();
        List<Double> rateRatios = new ArrayList<>();
        for (int i = 0; i < remote.size(); i++) {
          JsonObject r = remote.get(i).data;
          JsonObject l = local.get(i).data;
          Double rc = r.getDouble("cpuMsPerUnit");
          Double lc = l.getDouble("cpuMsPerUnit");
          if (rc != null && lc != null) {
            double delta = (rc - lc) * 1000 / k;
            cpuDeltas.add(delta);
            r.put("deltaCpuUsPerCall", Row.round(delta, 1));
          }
          double ratio = r.getDouble("perSecond") / l.getDouble("perSecond");
          rateRatios.add(ratio);
          r.put("throughputVsLocal", Row.round(ratio, 3));
        }
        rows.addAll(latency(subject, latencyK, latencyN));
        Row lat = rows.get(rows.size() - 1);
        JsonObject summary = new JsonObject().put("bench", NAME).put("subject", "remote - local").put("c", c).put("k", k)
          .put("reps", repeat).put("deltaCpuUsPerCall", median(cpuDeltas)).put("throughputVsLocal", median(rateRatios))
          .put("latencyK", latencyK).put("deltaP50UsPerCall", lat.data.getDouble("deltaP50UsPerCall"))
          .put("store", storeType).put("unit", "conversation");
        rows.add(new Row(summary, new JsonArray()));
      }
    }
    return rows;
  }

  private static void offer(ClusterServeSubject subject, String mode, int k) {
    subject.offer(tools("local".equals(mode) ? LOCAL_SERVER : REMOTE_SERVER, k));
  }

  /** One measured closed-loop phase, as {@link ConversationBench} measures one (full GC in both nodes first). */
  private static Row phase(ClusterServeSubject subject, LoadDriver driver, String mode, int c, int k, long seconds)
      throws Exception {
    subject.liveHeapBytes();
    FloorProbe.Listener floor = FloorProbe.listener();
    List<ProcessHandle> runtime = List.copyOf(subject.runtimeProcesses().values());
    long jitBefore = JitCpu.nanos(runtime);
    ConversationBench.NodeCpu nodes = ConversationBench.NodeCpu.start(subject);
    LoadDriver.Result r = driver.run(Integer.MAX_VALUE, c, seconds * 1000, 0, floor::reset);
    JsonObject nodeFigures = nodes.stop(r.completed());
    long jit = JitCpu.nanos(runtime) - jitBefore;
    Map<String, Double> floorMs = floor.read();
    Row row = Row.of(NAME, mode, c, r, 1.0);
    row.data.mergeIn(nodeFigures).put("k", k).put("unit", "conversation")
      .put("mockLagMaxMs", floorMs.get(FloorProbe.MOCK)).put("toolLateMaxMs", floorMs.get(FloorProbe.TOOL));
    if (r.cost().cpuNanos() > 0) {
      row.data.put("jitCpuShare", Row.round(jit / (double) r.cost().cpuNanos(), 3));
    }
    LOG.info("{} {}: {} conv/s, {} ms CPU/conv", NAME, mode, row.data.getDouble("perSecond"), row.data.getDouble("cpuMsPerUnit"));
    return row;
  }

  /** Warms up in 5 s steps (local, remote, ...) while the JIT takes more than 5 % of both nodes' CPU. */
  private static void settleJit(ClusterServeSubject subject, LoadDriver driver, int c, int k, long maxMs)
      throws InterruptedException {
    List<ProcessHandle> runtime = List.copyOf(subject.runtimeProcesses().values());
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMs);
    boolean remote = false;
    while (maxMs > 0 && System.nanoTime() - until < 0) {
      long jit = JitCpu.nanos(runtime);
      long cpu = ProcessStats.cpuOf(runtime);
      offer(subject, remote ? "remote" : "local", k);
      driver.run(Integer.MAX_VALUE, c, 5_000);
      remote = !remote;
      double share = (JitCpu.nanos(runtime) - jit) / (double) Math.max(1, ProcessStats.cpuOf(runtime) - cpu);
      if (share < 0.05) {
        return;
      }
      LOG.info("{}: the JIT still takes {}% of the nodes' CPU; warming up 5 s more", NAME, Math.round(share * 100));
    }
    if (maxMs > 0) {
      LOG.warn("{}: the JIT did not settle within {} s of extra warm-up", NAME, maxMs / 1000);
    }
  }

  /**
   * One conversation at a time, local and remote alternating ({@code n} of each, after 200 of
   * each unrecorded): two latency histograms, and the difference of their medians per call.
   */
  private static List<Row> latency(ClusterServeSubject subject, int k, int n) throws Exception {
    JsonObject localBody = ClusterServeSubject.createBody(tools(LOCAL_SERVER, k));
    JsonObject remoteBody = ClusterServeSubject.createBody(tools(REMOTE_SERVER, k));
    Histogram[] hist = {new ConcurrentHistogram(3_600_000_000L, 3), new ConcurrentHistogram(3_600_000_000L, 3)};
    AtomicIntegerArray failed = new AtomicIntegerArray(2);
    boolean[] record = {false};
    Subject alternating = new Subject() {
      @Override
      public String name() {
        return NAME + "-latency";
      }

      @Override
      public void start() {
      }

      @Override
      public Map<String, ProcessHandle> runtimeProcesses() {
        return subject.runtimeProcesses();
      }

      @Override
      public CompletionStage<?> conversation(int i) {
        int mode = i % 2;
        long start = System.nanoTime();
        return subject.conversation(i, mode == 0 ? localBody : remoteBody, k).whenComplete((v, err) -> {
          if (record[0]) {
            if (err == null) {
              hist[mode].recordValue(Math.max(1, (System.nanoTime() - start) / 1000));
            } else {
              failed.incrementAndGet(mode);
            }
          }
        });
      }

      @Override
      public void close() {
      }
    };
    LoadDriver driver = new LoadDriver(alternating);
    driver.run(400, 1, 120_000);
    record[0] = true;
    LoadDriver.Result r = driver.run(2 * n, 1, Math.max(120_000, 100L * n));
    List<Row> rows = new ArrayList<>();
    String[] modes = {"local", "remote"};
    for (int m = 0; m < 2; m++) {
      Histogram h = hist[m];
      JsonObject d = new JsonObject().put("bench", NAME).put("subject", modes[m] + " (latency)").put("c", 1).put("k", k)
        .put("completed", h.getTotalCount()).put("failed", failed.get(m))
        .put("p50Ms", Row.ms(h.getValueAtPercentile(50))).put("p90Ms", Row.ms(h.getValueAtPercentile(90)))
        .put("p99Ms", Row.ms(h.getValueAtPercentile(99))).put("maxMs", Row.ms(h.getMaxValue())).put("unit", "conversation");
      if (r.firstError() != null && failed.get(m) > 0) {
        d.put("firstError", r.firstError());
      }
      rows.add(new Row(d, Row.curve(h)));
    }
    double delta = (hist[1].getValueAtPercentile(50) - hist[0].getValueAtPercentile(50)) / (double) k;
    rows.get(1).data.put("deltaP50UsPerCall", Row.round(delta, 1));
    LOG.info("{}: C = 1, K = {}: local p50 {} ms, remote p50 {} ms", NAME, k, rows.get(0).data.getDouble("p50Ms"),
      rows.get(1).data.getDouble("p50Ms"));
    return rows;
  }

  private static Double median(List<Double> values) {
    if (values.isEmpty()) {
      return null;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return Row.round(v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2, 3);
  }
}
