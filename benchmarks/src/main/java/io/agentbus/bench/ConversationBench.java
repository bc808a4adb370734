package io.agentbus.bench;

import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the conversation workload against several subjects, one after the other in this JVM,
 * with the mock model server (and the HTTP MCP server) in child processes shared by all. Per
 * subject: a warm-up phase, the measured phase (latency, rate, CPU, GC), then optionally the
 * heap probe: C conversations held in their first model call, live heap after a full GC
 * compared with the live heap just before.
 */
final class ConversationBench {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationBench.class);

  /** One configuration of the workload and load. */
  record Config(String scenario, Workload workload, int c, int n, int warmupN, long warmupMs, long maxMs,
      boolean heapProbe, long rampMs, List<String> subjects) {
  }

  List<Row> run(Config cfg) throws Exception {
    List<Row> rows = new ArrayList<>();
    try (Child mock = Child.start(MockMain.class, List.of(cfg.workload().mockOptions().encode(), "2"));
         Child httpMcp = "http".equals(cfg.workload().mcp())
           ? Child.start(HttpBenchMcpServer.class, AgentbusSubject.benchServerArgs(cfg.workload())) : null) {
      Integer mcpPort = httpMcp == null ? null : httpMcp.port();
      for (String name : cfg.subjects()) {
        Subject subject = create(name, cfg, mock.port(), mcpPort);
        LOG.info("{} c={}: {}", cfg.scenario(), cfg.c(), subject.name());
        try {
          subject.start();
          rows.add(measure(cfg, subject));
        } finally {
          subject.close();
        }
      }
    }
    addRatios(rows);
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
      case "agentbus-h2" -> new AgentbusSubject(w, mockPort, cfg.c(), true, false, mcpPort);
      case "langchain4j" -> new LangChain4jSubject(w, mockPort, cfg.c(), false, true, mcpPort);
      case "langchain4j-vt" -> new LangChain4jSubject(w, mockPort, cfg.c(), true, true, mcpPort);
      case "langchain4j-seq" -> new LangChain4jSubject(w, mockPort, cfg.c(), false, false, mcpPort);
      default -> throw new IllegalArgumentException("unknown subject '" + name
        + "' (serve, serve-sse, ceiling, agentbus, agentbus-sse, agentbus-http, agentbus-h2, langchain4j, langchain4j-vt, langchain4j-seq)");
    };
  }

  private static Row measure(Config cfg, Subject subject) throws Exception {
    LoadDriver driver = new LoadDriver(subject);
    if (cfg.warmupN() > 0) {
      LoadDriver.Result warm = driver.run(cfg.warmupN(), cfg.c(), cfg.warmupMs(), cfg.rampMs());
      if (warm.failed() > 0) {
        LOG.warn("{}: {} warm-up conversations failed, first: {}", subject.name(), warm.failed(), warm.firstError());
      }
    }
    subject.liveHeapBytes();
    LoadDriver.Result r = driver.run(cfg.n(), cfg.c(), cfg.maxMs(), cfg.rampMs());
    double units = 1.0;
    Row row = Row.of(cfg.scenario(), subject.name(), cfg.c(), r, units);
    Workload w = cfg.workload();
    row.data.put("unit", "conversation").put("workload", w.toJson()).put("injectedMs", w.injectedMs())
      .put("java", Runtime.version().feature()).put("rampMs", cfg.rampMs());
    if ("ceiling".equals(subject.name())) {
      row.data.put("modelRoundTripsPerSecond", Row.round(row.data.getDouble("perSecond") * subject.modelCallsPerConversation(), 1));
    } else if (w.modelJitterMs() == 0) {
      row.data.put("overheadP50Ms", Row.round(row.data.getDouble("p50Ms") - w.injectedMs(), 3))
        .put("overheadP99Ms", Row.round(row.data.getDouble("p99Ms") - w.injectedMs(), 3));
    }
    if (cfg.heapProbe() && !"ceiling".equals(subject.name())) {
      row.data.put("heapKbPerInFlight", heapProbe(cfg, subject));
    }
    return row;
  }

  /** C conversations held in their first model call: (live heap - live heap before) / C, in KB. */
  private static Double heapProbe(Config cfg, Subject subject) throws Exception {
    long before = subject.liveHeapBytes();
    LoadDriver driver = new LoadDriver(subject);
    CompletableFuture<LoadDriver.Result> phase = CompletableFuture.supplyAsync(() -> {
      try {
        return driver.run(cfg.c(), cfg.c(), cfg.maxMs());
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    // Every conversation starts at once; give them half a model latency to reach the mock.
    Thread.sleep(Math.max(200, cfg.workload().modelMs() / 2));
    int inFlight = driver.inFlight();
    long during = subject.liveHeapBytes();
    int stillInFlight = driver.inFlight();
    LoadDriver.Result r = phase.get(cfg.maxMs() + 600_000, TimeUnit.MILLISECONDS);
    if (inFlight < cfg.c() || stillInFlight < cfg.c() || r.failed() > 0) {
      LOG.warn("{}: heap probe not at steady state ({} / {} in flight, {} failed)", subject.name(), stillInFlight, cfg.c(), r.failed());
      return null;
    }
    return Row.round((during - before) / 1024.0 / cfg.c(), 2);
  }

  /** Agentbus rows get ratios to the LangChain4j row and to the ceiling of the same run. */
  private static void addRatios(List<Row> rows) {
    Row ceiling = find(rows, "ceiling");
    Row peer = rows.stream().filter(r -> r.data.getString("subject").startsWith("langchain4j")
      && !r.data.getString("subject").endsWith("-seq")).findFirst().orElse(null);
    for (Row r : rows) {
      JsonObject d = r.data;
      if (ceiling != null && r != ceiling) {
        d.put("vsCeiling", ratio(d.getDouble("perSecond"), ceiling.data.getDouble("perSecond")));
      }
      if (peer != null && d.getString("subject").startsWith("agentbus")) {
        d.put("peer", peer.data.getString("subject"))
          .put("throughputVsPeer", ratio(d.getDouble("perSecond"), peer.data.getDouble("perSecond")))
          .put("cpuFractionOfPeer", ratio(d.getDouble("cpuMsPerUnit"), peer.data.getDouble("cpuMsPerUnit")));
      }
    }
  }

  private static Row find(List<Row> rows, String subject) {
    return rows.stream().filter(r -> subject.equals(r.data.getString("subject"))).findFirst().orElse(null);
  }

  private static Double ratio(Double a, Double b) {
    return a == null || b == null || b == 0 ? null : Row.round(a / b, 3);
  }
}
