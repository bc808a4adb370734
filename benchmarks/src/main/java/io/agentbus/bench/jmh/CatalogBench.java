package io.agentbus.bench.jmh;

import io.agentbus.catalog.CatalogSnapshot;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Catalog projection: building a {@link CatalogSnapshot} (namespaced names, Anthropic and OpenAI
 * projections, schema compilation) from N tools over 3 servers, from scratch and incrementally
 * (one tool changed: the others keep their compiled schemas), and the per-request projection
 * {@code toJson("anthropic")} that copies the tools array.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CatalogBench {

  @Param({"10", "100"})
  public int tools;

  private Map<String, List<JsonObject>> byServer;
  private Map<String, List<JsonObject>> oneChanged;
  private CatalogSnapshot snapshot;
  private long version;

  @Setup
  public void setUp() {
    byServer = new LinkedHashMap<>();
    for (int i = 0; i < tools; i++) {
      byServer.computeIfAbsent("server" + (i % 3), s -> new ArrayList<>()).add(tool("tool_" + i, "a"));
    }
    oneChanged = new LinkedHashMap<>();
    byServer.forEach((s, list) -> oneChanged.put(s, new ArrayList<>(list)));
    oneChanged.get("server0").set(0, tool("tool_0", "changed"));
    snapshot = CatalogSnapshot.build(1, byServer, null);
  }

  private static JsonObject tool(String name, String description) {
    return new JsonObject().put("name", name).put("description", "Tool " + name + ": " + description)
      .put("inputSchema", new JsonObject().put("type", "object")
        .put("properties", new JsonObject().put("query", new JsonObject().put("type", "string"))
          .put("limit", new JsonObject().put("type", "integer").put("minimum", 1)))
        .put("required", new JsonArray().add("query")));
  }

  @Benchmark
  public CatalogSnapshot buildFromScratch() {
    return CatalogSnapshot.build(++version, byServer, null);
  }

  @Benchmark
  public CatalogSnapshot rebuildOneChanged() {
    return CatalogSnapshot.build(++version, oneChanged, snapshot);
  }

  @Benchmark
  public JsonObject anthropicProjection() {
    return snapshot.toJson("anthropic");
  }
}
