package io.agentbus.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the conversation workload against several subjects, one after the other, with the mock
 * model server (and the HTTP MCP server) in child processes shared by all; with {@code repeat}
 * R > 1 the whole subject list runs R times in alternation (a, b, a, b, ...), each run its own
 * row with its {@code rep}, followed by one {@code rep: "median"} row per subject. Per subject:
 * a warm-up phase, the measured phase (latency, rate, CPU, GC, the fixture floor), then
 * optionally the heap probe: live heap after a full GC with C conversations in flight compared
 * with the live heap just before, with none.
 *
 * <p>The turn overhead (latency minus the injected model and tool latency) and the fixture floor
 * ({@link FloorProbe}: {@code mockLagMaxMs}, {@code toolLateMaxMs}) cover the conversations
 * started after the ramp (with no ramp, the whole phase). Ratios to the peer (the first
 * LangChain4j subject) and to the ceiling are taken within one repetition; the median row holds
 * the median of those per-repetition ratios.
 */
final class ConversationBench {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationBench.class);

  /** One configuration of the workload and load. */
  record Config(String scenario, Workload workload, int c, int n, int warmupN, long warmupMs, long maxMs,
      boolean heapProbe, long rampMs, List<String> subjects, int repeat, String peerHttp, long jitSettleMaxMs) {

    /** @return whether the LangChain4j peer's JDK client is pinned to HTTP/1.1 ({@code --peer-http}) */
    boolean peerPinsHttp11() {
      return switch (peerHttp) {
        case "1.1" -> true;
        case "default" -> false;
        case "auto" -> c > LangChain4jSubject.MOCK_H2_STREAMS;
        default -> throw new IllegalArgumentException("--peer-http is auto, default or 1.1, not " + peerHttp);
      };
    }
  }

  /** The figures a median row summarises. */
  private static final List<String> MEDIAN_KEYS = List.of("perSecond", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs",
    "overheadP50Ms", "overheadP99Ms", "overheadMaxMs", "cpuMsPerUnit", "jitCpuShare", "driverCpuMsPerUnit", "childCpuMsPerUnit",
    "pgCpuMsPerUnit",
    "heapKbPerInFlight", "mockLagMaxMs", "toolLateMaxMs", "vsCeiling", "throughputVsPeer", "cpuFractionOfPeer");

  List<Row> run(Config cfg) throws Exception {
    List<Row> rows = new ArrayList<>();
    List<String> mockArgs = new ArrayList<>(List.of(cfg.workload().mockOptions().encode(), "2"));
    mockArgs.addAll(FloorProbe.listener().args());
    try (Child mock = Child.start(MockMain.class, mockArgs);
         Child httpMcp = "http".equals(cfg.workload().mcp())
           ? Child.start(HttpBenchMcpServer.class, AgentbusSubject.benchServerArgs(cfg.workload())) : null) {
      Integer mcpPort = httpMcp == null ? null : httpMcp.port();
      for (int rep = 1; rep <= cfg.repeat(); rep++) {
        for (String name : cfg.subjects()) {
          Subject subject = create(name, cfg, mock.port(), mcpPort);
          LOG.info("{} c={}: {}{}", cfg.scenario(), cfg.c(), subject.name(),
            cfg.repeat() > 1 ? " (" + rep + "/" + cfg.repeat() + ")" : "");
          try {
            subject.start();
            Row row = measure(cfg, subject);
            if (cfg.repeat() > 1) {
              row.data.put("rep", rep);
            }
            rows.add(row);
          } finally {
            subject.close();
          }
        }
      }
    }
    addRatios(rows);
    if (cfg.repeat() > 1) {
      rows.addAll(medians(rows));
    }
    return rows;
  }

  private static Subject create(String name, Config cfg, int mockPort, Integer mcpPort) {
    Workload w = cfg.workload();
    return switch (name) {
      case "ceiling" -> new RawHttpSubject(mockPort, cfg.c());
      case "agentbus" -> new AgentbusSubject(w, mockPort, cfg.c(), false, false, mcpPort);
      case "agentbus-sse" -> new AgentbusSubject(w, mockPort, cfg.c(), false, true, mcpPort);
      case "agentbus-http" -> new AgentbusHttpSubject(w, mockPort, cfg.c(), mcpPort);
      case "serve" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, false);
      case "serve-sse" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, true);
      case "serve-b" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, false, "b", null);
      case "serve-sse-b" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, true, "b", null);
      case "serve-memory" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, false, "memory",
        new JsonObject().put("type", "memory"));
      case "serve-postgres" -> new ServeSubject(w, mockPort, cfg.c(), mcpPort, false, "postgres", postgresStore());
      case "serve-cluster1", "serve-cluster3" -> ClusterServeSubject.of(name, w, mockPort, cfg.c(), mcpPort, postgresStore());
      case "agentbus-h2" -> new AgentbusSubject(w, mockPort, cfg.c(), true, false, mcpPort);
      case "langchain4j" -> new LangChain4jSubject(w, mockPort, cfg.c(), false, true, mcpPort, cfg.peerPinsHttp11());
      case "langchain4j-vt" -> new LangChain4jSubject(w, mockPort, cfg.c(), true, true, mcpPort, cfg.peerPinsHttp11());
      case "langchain4j-seq" -> new LangChain4jSubject(w, mockPort, cfg.c(), false, false, mcpPort, cfg.peerPinsHttp11());
      default -> throw new IllegalArgumentException("unknown subject '" + name
        + "' (serve, serve-sse, serve-b, serve-sse-b, serve-memory, serve-postgres, serve-cluster1, serve-cluster3, ceiling, agentbus, agentbus-sse, agentbus-http, agentbus-h2, langchain4j, langchain4j-vt, langchain4j-seq)");
    };
  }

  private static Row measure(Config cfg, Subject subject) throws Exception {
    LoadDriver driver = new LoadDriver(subject);
    if (cfg.warmupN() > 0) {
      LoadDriver.Result warm = driver.run(cfg.warmupN(), cfg.c(), cfg.warmupMs(), cfg.rampMs(), () -> { });
      if (warm.failed() > 0) {
        LOG.warn("{}: {} warm-up conversations failed, first: {}", subject.name(), warm.failed(), warm.firstError());
      }
    }
    settleJit(cfg, subject, driver);
    subject.liveHeapBytes();
    FloorProbe.Listener floor = FloorProbe.listener();
    List<ProcessHandle> runtime = runtimeOf(subject);
    long jitBefore = JitCpu.nanos(runtime);
    NodeCpu nodes = NodeCpu.start(subject);
    LoadDriver.Result r = driver.run(cfg.n(), cfg.c(), cfg.maxMs(), cfg.rampMs(), floor::reset);
    JsonObject nodeFigures = nodes.stop(r.completed());
    long jitNanos = JitCpu.nanos(runtime) - jitBefore;
    Map<String, Double> floorMs = floor.read();
    double units = 1.0;
    Row row = Row.of(cfg.scenario(), subject.name(), cfg.c(), r, units);
    if (r.cost().cpuNanos() > 0) {
      row.data.put("jitCpuShare", Row.round(jitNanos / (double) r.cost().cpuNanos(), 3));
    }
    row.data.mergeIn(nodeFigures);
    if (subject instanceof LangChain4jSubject peer) {
      row.data.put("modelHttp", peer.httpVersion());
    }
    Workload w = cfg.workload();
    row.data.put("unit", "conversation").put("workload", w.toJson()).put("injectedMs", w.injectedMs())
      .put("java", Runtime.version().feature()).put("rampMs", cfg.rampMs())
      .put("mockLagMaxMs", floorMs.get(FloorProbe.MOCK)).put("toolLateMaxMs", floorMs.get(FloorProbe.TOOL))
      .put("fixtureJvm", String.join(" ", Child.fixtureJvmOptions()));
    Histogram steady = r.steadyLatencyUs();
    if ("ceiling".equals(subject.name())) {
      row.data.put("modelRoundTripsPerSecond", Row.round(row.data.getDouble("perSecond") * subject.modelCallsPerConversation(), 1));
    } else if (w.modelJitterMs() == 0 && steady.getTotalCount() > 0) {
      row.data.put("overheadConversations", steady.getTotalCount())
        .put("overheadP50Ms", Row.round(Row.ms(steady.getValueAtPercentile(50)) - w.injectedMs(), 3))
        .put("overheadP99Ms", Row.round(Row.ms(steady.getValueAtPercentile(99)) - w.injectedMs(), 3))
        .put("overheadMaxMs", Row.round(Row.ms(steady.getMaxValue()) - w.injectedMs(), 3));
    }
    if (cfg.heapProbe() && !"ceiling".equals(subject.name())) {
      row.data.put("heapKbPerInFlight", heapProbe(cfg, subject));
    }
    return row;
  }

  /** @return the runtime's processes (this one for in-process subjects) */
  private static List<ProcessHandle> runtimeOf(Subject subject) {
    List<ProcessHandle> all = List.copyOf(subject.runtimeProcesses().values());
    return all.isEmpty() ? List.of(ProcessHandle.current()) : all;
  }

  /**
   * Keeps warming up, 5 s at a time, while the runtime's JIT compiler threads still take more
   * than 5 % of its CPU (at most {@code jitSettleMaxMs}): a fresh JVM on two busy cores
   * compiles for tens of seconds, and a measured phase that starts earlier counts the
   * compiler as the runtime's cost per conversation.
   */
  private static void settleJit(Config cfg, Subject subject, LoadDriver driver) throws InterruptedException {
    if (cfg.jitSettleMaxMs() <= 0) {
      return;
    }
    List<ProcessHandle> runtime = runtimeOf(subject);
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(cfg.jitSettleMaxMs());
    while (System.nanoTime() - until < 0) {
      long jit = JitCpu.nanos(runtime);
      long cpu = ProcessStats.cpuOf(runtime);
      driver.run(cfg.n(), cfg.c(), 5_000, 0, () -> { });
      double share = (JitCpu.nanos(runtime) - jit) / (double) Math.max(1, ProcessStats.cpuOf(runtime) - cpu);
      if (share < 0.05) {
        return;
      }
      LOG.info("{}: the JIT still takes {}% of the runtime's CPU; warming up 5 s more", subject.name(),
        Math.round(share * 100));
    }
    LOG.warn("{}: the JIT did not settle within {} s of extra warm-up", subject.name(), cfg.jitSettleMaxMs() / 1000);
  }

  /**
   * Live heap per in-flight conversation, in KB: (live heap with C conversations in flight - live
   * heap with none) / C. The C run in a closed loop (each replaced as soon as it ends) from
   * before the measurement until after it, so that C stay in flight however long the
   * measurement takes (jcmd for {@code serve}); they start at once and get half a model latency
   * to reach the mock first.
   */
  private static Double heapProbe(Config cfg, Subject subject) throws Exception {
    long before = subject.liveHeapBytes();
    LoadDriver driver = new LoadDriver(subject);
    CompletableFuture<LoadDriver.Result> phase = CompletableFuture.supplyAsync(() -> {
      try {
        return driver.run(Integer.MAX_VALUE, cfg.c(), cfg.maxMs());
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(Math.max(200, cfg.workload().modelMs() / 2));
    long during;
    try {
      during = subject.liveHeapBytes();
    } finally {
      driver.stop();
    }
    LoadDriver.Result r = phase.get(cfg.maxMs() + 600_000, TimeUnit.MILLISECONDS);
    if (r.failed() > 0) {
      LOG.warn("{}: heap probe had {} failed conversations, first: {}", subject.name(), r.failed(), r.firstError());
      return null;
    }
    return Row.round((during - before) / 1024.0 / cfg.c(), 2);
  }

  /**
   * Agentbus rows ({@code serve*}, {@code agentbus*}) get ratios to the LangChain4j row and every
   * row to the ceiling, both of the same repetition.
   */
  private static void addRatios(List<Row> rows) {
    for (Row r : rows) {
      JsonObject d = r.data;
      List<Row> same = rows.stream().filter(o -> Objects.equals(o.data.getValue("rep"), d.getValue("rep"))).toList();
      Row ceiling = same.stream().filter(o -> "ceiling".equals(o.data.getString("subject"))).findFirst().orElse(null);
      Row peer = same.stream().filter(o -> o.data.getString("subject").startsWith("langchain4j")
        && !o.data.getString("subject").endsWith("-seq")).findFirst().orElse(null);
      if (ceiling != null && r != ceiling) {
        d.put("vsCeiling", ratio(d.getDouble("perSecond"), ceiling.data.getDouble("perSecond")));
      }
      String subject = d.getString("subject");
      if (peer != null && (subject.startsWith("agentbus") || subject.startsWith("serve"))) {
        d.put("peer", peer.data.getString("subject"))
          .put("throughputVsPeer", ratio(d.getDouble("perSecond"), peer.data.getDouble("perSecond")))
          .put("cpuFractionOfPeer", ratio(d.getDouble("cpuMsPerUnit"), peer.data.getDouble("cpuMsPerUnit")));
      }
    }
  }

  /** Per subject, the median of each figure (ratios: of the per-repetition ratios) over the repetitions. */
  private static List<Row> medians(List<Row> rows) {
    Map<String, List<JsonObject>> bySubject = new LinkedHashMap<>();
    rows.forEach(r -> bySubject.computeIfAbsent(r.data.getString("subject"), k -> new ArrayList<>()).add(r.data));
    List<Row> out = new ArrayList<>();
    bySubject.forEach((subject, runs) -> {
      JsonObject first = runs.get(0);
      JsonObject d = new JsonObject().put("bench", first.getString("bench")).put("subject", subject)
        .put("c", first.getInteger("c")).put("rep", "median").put("reps", runs.size())
        .put("unit", first.getString("unit")).put("workload", first.getJsonObject("workload"));
      if (first.containsKey("peer")) {
        d.put("peer", first.getString("peer"));
      }
      if (first.containsKey("runtimeJvms")) {
        d.put("runtimeJvms", first.getInteger("runtimeJvms")).put("cpuScope", first.getString("cpuScope"));
      }
      for (String key : MEDIAN_KEYS) {
        double[] v = runs.stream().map(o -> o.getDouble(key)).filter(Objects::nonNull).mapToDouble(Double::doubleValue)
          .sorted().toArray();
        if (v.length > 0) {
          d.put(key, Row.round(v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2, 4));
        }
      }
      out.add(new Row(d, new JsonArray()));
    });
    return out;
  }

  private static Double ratio(Double a, Double b) {
    return a == null || b == null || b == 0 ? null : Row.round(a / b, 3);
  }

  /**
   * Per-node CPU of a multi-process runtime (a cluster), and the local PostgreSQL's CPU for
   * subjects that keep conversations there, over one measured phase. A row then says how many
   * JVMs its runtime CPU sums ({@code runtimeJvms}, {@code cpuScope}) and what each took
   * ({@code nodeCpuMsPerUnit}: "A 0.061 / B 0.243 / ..." ms per conversation).
   */
  record NodeCpu(Map<String, ProcessHandle> nodes, Map<String, Long> before, long pgBefore) {

    static NodeCpu start(Subject subject) {
      Map<String, ProcessHandle> nodes = subject.runtimeProcesses();
      Map<String, Long> before = new LinkedHashMap<>();
      nodes.forEach((name, p) -> before.put(name, ProcessStats.cpuOf(p)));
      return new NodeCpu(nodes, before, subject.usesPostgres() ? PostgresCpu.nanos() : -1);
    }

    /** @return the figures of the phase that just ended ({@code completed} conversations) */
    JsonObject stop(int completed) {
      JsonObject row = new JsonObject();
      if (completed == 0) {
        return row;
      }
      if (nodes.size() > 1) {
        StringBuilder each = new StringBuilder();
        nodes.forEach((name, p) -> each.append(each.length() == 0 ? "" : " / ").append(name).append(' ')
          .append(String.format(java.util.Locale.ROOT, "%.3f", (ProcessStats.cpuOf(p) - before.get(name)) / 1e6 / completed)));
        row.put("runtimeJvms", nodes.size()).put("cpuScope", "sum of " + nodes.size() + " serve JVMs")
          .put("nodeCpuMsPerUnit", each.toString());
      }
      if (pgBefore >= 0) {
        row.put("pgCpuMsPerUnit", Row.round((PostgresCpu.nanos() - pgBefore) / 1e6 / completed, 4));
      }
      return row;
    }
  }

  /**
   * The {@code serve-postgres} store: {@code BENCH_PG_URI} (default the local test database),
   * schema {@code agentbus_bench}, and {@code BENCH_PG_POOL_SIZE} when set (else the default).
   */
  static JsonObject postgresStore() {
    JsonObject store = new JsonObject().put("type", "postgres").put("schema", "agentbus_bench")
      .put("uri", System.getenv().getOrDefault("BENCH_PG_URI", "postgresql://postgres@127.0.0.1:5432/test"));
    String pool = System.getenv("BENCH_PG_POOL_SIZE");
    if (pool != null && !pool.isBlank()) {
      store.put("poolSize", Integer.parseInt(pool.trim()));
    }
    return store;
  }
}
