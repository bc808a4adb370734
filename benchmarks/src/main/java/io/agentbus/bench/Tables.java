package io.agentbus.bench;

import static io.agentbus.bench.Table.col;

import java.util.List;

/** The human table of each scenario. */
final class Tables {

  private Tables() {
  }

  static Table of(String scenario, List<Row> rows) {
    Table t = switch (scenario) {
      case "stdio-pipeline" -> new Table("stdio-pipeline: noop calls over one stdio connection, W in flight", List.of(
        col("client", "subject", null), col("W", "c", "%.0f"), col("calls", "completed", "%.0f"),
        col("calls/s", "perSecond", "%.0f"), col("p50 ms", "p50Ms", "%.3f"), col("p99 ms", "p99Ms", "%.3f"),
        col("max ms", "maxMs", "%.1f"), col("cpu µs/call", "cpuUsPerCall", "%.1f"), col("server cpu ms/call", "childCpuMsPerUnit", "%.4f"), col("cpu util", "cpuUtilization", "%.2f"),
        col("gc", "gcCount", "%.0f"), col("x peer", "throughputVsPeer", "%.2f"), col("cpu/peer", "cpuFractionOfPeer", "%.3f")));
      case "fanout" -> new Table("fanout: K tools of T ms in one turn (batch/T)", List.of(
        col("K", "k", "%.0f"), col("mode", "mode", null), col("median ms", "medianMs", "%.2f"), col("p90 ms", "p90Ms", "%.2f"),
        col("batch/T", "ratio", "%.3f"), col("overhead µs/call", "overheadPerCallUs", "%.1f")));
      case ClusterToolScenario.NAME -> new Table(ClusterToolScenario.NAME
        + ": the same tools on the conversation's node (local) or on another node (remote), both nodes' CPU summed", List.of(
        col("tools", "subject", null), col("rep", "rep", "%.0f"), col("C", "c", "%.0f"), col("K", "k", "%.0f"),
        col("done", "completed", "%.0f"), col("fail", "failed", "%.0f"), col("conv/s", "perSecond", "%.1f"),
        col("p50 ms", "p50Ms", "%.2f"), col("p90 ms", "p90Ms", "%.2f"), col("p99 ms", "p99Ms", "%.2f"), col("max ms", "maxMs", "%.1f"),
        col("mock lag", "mockLagMaxMs", "%.1f"), col("tool late", "toolLateMaxMs", "%.1f"),
        col("cpu ms/conv", "cpuMsPerUnit", "%.3f"), col("nodes cpu ms/conv", "nodeCpuMsPerUnit", null),
        col("jit", "jitCpuShare", "%.2f"), col("driver cpu ms/conv", "driverCpuMsPerUnit", "%.3f"),
        col("child cpu ms/conv", "childCpuMsPerUnit", "%.3f"), col("x local", "throughputVsLocal", "%.3f"),
        col("+cpu µs/call", "deltaCpuUsPerCall", "%.1f"), col("+p50 µs/call", "deltaP50UsPerCall", "%.1f")));
      default -> new Table(scenario + ": conversations (model -> K tools -> model), C in flight", List.of(
        col("subject", "subject", null), col("rep", "rep", "%.0f"), col("C", "c", "%.0f"), col("done", "completed", "%.0f"),
        col("fail", "failed", "%.0f"), col("conv/s", "perSecond", "%.1f"), col("p50 ms", "p50Ms", "%.1f"),
        col("p90 ms", "p90Ms", "%.1f"), col("p99 ms", "p99Ms", "%.1f"), col("p999 ms", "p999Ms", "%.1f"),
        col("max ms", "maxMs", "%.1f"), col("ovh p50", "overheadP50Ms", "%.1f"), col("ovh p99", "overheadP99Ms", "%.1f"),
        col("ovh max", "overheadMaxMs", "%.1f"), col("mock lag", "mockLagMaxMs", "%.1f"), col("tool late", "toolLateMaxMs", "%.1f"),
        col("cpu s", "cpuSeconds", "%.2f"), col("cpu ms/conv", "cpuMsPerUnit", "%.3f"), col("jvms", "runtimeJvms", "%.0f"),
        col("nodes cpu ms/conv", "nodeCpuMsPerUnit", null), col("pg cpu ms/conv", "pgCpuMsPerUnit", "%.3f"),
        col("jit", "jitCpuShare", "%.2f"),
        col("driver cpu ms/conv", "driverCpuMsPerUnit", "%.3f"), col("child cpu ms/conv", "childCpuMsPerUnit", "%.3f"),
        col("gc", "gcCount", "%.0f"), col("heap KB/conv", "heapKbPerInFlight", "%.2f"), col("x ceiling", "vsCeiling", "%.2f"),
        col("x peer", "throughputVsPeer", "%.2f"), col("cpu/peer", "cpuFractionOfPeer", "%.3f")));
    };
    rows.forEach(t::add);
    return t;
  }
}
