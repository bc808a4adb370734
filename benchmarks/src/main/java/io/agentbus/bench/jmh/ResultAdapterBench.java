package io.agentbus.bench.jmh;

import io.agentbus.dispatch.ResultAdapter;
import io.agentbus.model.Provider;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link ResultAdapter#adapt}: an MCP {@code CallToolResult} to Anthropic / OpenAI tool_result
 * content, for a one-line text, structured content only, and a 400 KB text cut to the cap.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResultAdapterBench {

  private final ResultAdapter adapter = new ResultAdapter(100_000, 5 * 1024 * 1024);
  private final JsonObject text = new JsonObject().put("content", new JsonArray()
    .add(new JsonObject().put("type", "text").put("text", "Sunny, 21 C"))).put("isError", false);
  private final JsonObject structured = new JsonObject().put("content", new JsonArray())
    .put("structuredContent", new JsonObject().put("temperature", 21).put("conditions", "sunny").put("humidity", 40));
  private final JsonObject large = new JsonObject().put("content", new JsonArray()
    .add(new JsonObject().put("type", "text").put("text", "0123456789".repeat(40_000))));

  @Benchmark
  public JsonArray smallTextAnthropic() {
    return adapter.adapt(text, null, Provider.ANTHROPIC);
  }

  @Benchmark
  public JsonArray smallTextOpenAi() {
    return adapter.adapt(text, null, Provider.OPENAI);
  }

  @Benchmark
  public JsonArray structuredOnly() {
    return adapter.adapt(structured, null, Provider.ANTHROPIC);
  }

  @Benchmark
  public JsonArray largeTextCapped() {
    return adapter.adapt(large, null, Provider.ANTHROPIC);
  }
}
