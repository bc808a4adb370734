package io.agentbus.bench.jmh;

import io.agentbus.sse.SseParser;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * {@link SseParser}: one Anthropic streaming response (message_start, a text block of 200
 * deltas, message_delta, message_stop) fed in chunks of the given size, as the network
 * delivers it. Reports the time per whole stream.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SseParserBench {

  @Param({"64", "16384"})
  public int chunk;

  private List<Buffer> chunks;

  @Setup
  public void setUp() {
    StringBuilder s = new StringBuilder();
    s.append("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
      + "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,"
      + "\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n");
    s.append("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
      + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    for (int i = 0; i < 200; i++) {
      s.append("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
        + "\"delta\":{\"type\":\"text_delta\",\"text\":\"word").append(i).append(" \"}}\n\n");
    }
    s.append("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n");
    s.append("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
      + "\"usage\":{\"output_tokens\":200}}\n\n");
    s.append("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    Buffer all = Buffer.buffer(s.toString());
    chunks = new ArrayList<>();
    for (int i = 0; i < all.length(); i += chunk) {
      chunks.add(all.getBuffer(i, Math.min(all.length(), i + chunk)));
    }
  }

  @Benchmark
  public void parseStream(Blackhole bh) {
    SseParser parser = SseParser.create().handler(bh::consume);
    for (Buffer b : chunks) {
      parser.handle(b);
    }
    parser.end();
  }
}
