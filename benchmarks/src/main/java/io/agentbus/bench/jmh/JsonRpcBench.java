package io.agentbus.bench.jmh;

import io.agentbus.mcp.jsonrpc.JsonRpc;
import io.vertx.core.buffer.Buffer;
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
 * JSON-RPC on the MCP client's path: encoding a {@code tools/call} request to the line written
 * to the server, and decoding a {@code CallToolResult} response line (small and 8 KB text).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class JsonRpcBench {

  private final JsonObject arguments = new JsonObject().put("city", "Paris").put("units", "metric").put("days", 3);
  private final Buffer smallResponse = response("Sunny, 21 C");
  private final Buffer largeResponse = response("x".repeat(8192));
  private long id;

  private static Buffer response(String text) {
    return JsonRpc.result("c1-42", new JsonObject().put("content", new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", text))).put("isError", false)).toBuffer().appendString("\n");
  }

  /** A tools/call request as written to stdio (encode + newline). */
  @Benchmark
  public Buffer encodeToolsCall() {
    JsonObject params = new JsonObject().put("name", "get_weather").put("arguments", arguments);
    return JsonRpc.request("c1-" + (++id), "tools/call", params).toBuffer().appendString("\n");
  }

  /** A small CallToolResult line decoded and classified. */
  @Benchmark
  public boolean decodeSmallResult() {
    JsonObject msg = new JsonObject(smallResponse);
    return JsonRpc.isResponse(msg) && JsonRpc.idKey(msg.getValue("id")) != null;
  }

  /** An 8 KB text CallToolResult line decoded. */
  @Benchmark
  public JsonObject decodeLargeResult() {
    return new JsonObject(largeResponse);
  }
}
