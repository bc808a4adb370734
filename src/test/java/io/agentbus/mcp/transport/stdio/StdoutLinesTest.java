package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.Suppressed;
import io.agentbus.testing.LogCapture;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A stdio server's stdout as the transport frames and reads it ({@link LineFramer} and
 * {@link StdoutLines}): JSON objects get through, garbage at full speed costs a few warnings
 * per kind and a count.
 */
class StdoutLinesTest {

  private static final String LOGGER = StdioTransport.class.getName();
  private static final int FLOOD = 100_000;
  private static final int MAX_BYTES = 1024;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private final List<JsonObject> messages = new ArrayList<>();
  private final StdoutLines stdout = new StdoutLines("s1", MAX_BYTES, messages::add, null);
  private final LineFramer framer = new LineFramer(MAX_BYTES, stdout::line, stdout::oversized);

  private void feed(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    framer.handle(bytes, bytes.length);
  }

  private long warnings(String text) {
    return logs.lines().stream().filter(l -> l.startsWith("WARN " + LOGGER + " [s1] " + text)).count();
  }

  @Test
  void aGarbageFloodCostsAFewWarningsPerKindAndACount() {
    StringBuilder chunk = new StringBuilder();
    for (int i = 0; i < FLOOD; i++) {
      chunk.append(switch (i % 4) {
        case 0 -> "this is not json " + i;
        case 1 -> "{\"broken\": " + i;
        case 2 -> "[" + i + "]";
        default -> "x".repeat(MAX_BYTES + 1);
      }).append('\n');
      if (chunk.length() > 60_000) {
        feed(chunk.toString());
        chunk.setLength(0);
      }
    }
    chunk.append("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n");
    feed(chunk.toString());
    assertEquals(1, messages.size(), "the message after the flood got through");

    assertEquals(5, warnings("skipped a line that is not JSON: "), logs.lines()::toString);
    assertTrue(logs.contains("[s1] skipped a line that is not JSON: this is not json 0"));
    assertTrue(logs.contains("[s1] skipped a line that is not JSON: {\"broken\": 1"));
    assertEquals(5, warnings("skipped a line that is not a JSON-RPC object: "));
    assertTrue(logs.contains("[s1] skipped a line that is not a JSON-RPC object: [2]"));
    assertEquals(5, warnings("skipped a " + (MAX_BYTES + 1) + "-byte message: over the " + MAX_BYTES + "-byte limit"));
    assertEquals(0, Suppressed.summaries(logs.lines()), "the counts come when the window ends or the connection does");

    stdout.flush();
    assertEquals(FLOOD / 2 - 5, Suppressed.count(logs.lines(), "s1", "stdout lines that are not JSON"));
    assertEquals(FLOOD / 4 - 5, Suppressed.count(logs.lines(), "s1", "stdout lines that are not a JSON-RPC object"));
    assertEquals(FLOOD / 4 - 5, Suppressed.count(logs.lines(), "s1", "stdout lines over the size limit"));
    assertTrue(logs.contains("WARN " + LOGGER + " [s1] suppressed 49995 similar warnings in the last "), logs.lines()::toString);
    assertEquals(15 + 3, logs.lines().size(), logs.lines()::toString);
  }

  @Test
  void theShapeCheckLetsEveryJsonValueThroughAndStopsMostGarbage() {
    for (String json : List.of("{}", " {\"a\":1}\t", "[1]", "\"s\"", "\"\"", "0", "12", "-1.5e3", "true", "false", "null",
      "{garbage}")) {
      assertTrue(StdoutLines.mayBeJson(Buffer.buffer(json)), json);
    }
    for (String garbage : List.of("this is not json", "{\"broken\": 1", "garbage", "\"", "-", "t", "nil", " ", "1a", "[1,")) {
      assertFalse(StdoutLines.mayBeJson(Buffer.buffer(garbage)), garbage);
    }
  }

  @Test
  void aLineThatLooksLikeNoJsonValueIsSkippedAndShownWithoutControlCharacters() {
    feed("  \t\u001b[31mred\u001b[0m\n");
    feed("\"a string\"\n");
    feed("  {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n");
    assertEquals(1, messages.size());
    assertEquals(1, messages.get(0).getInteger("id"));
    assertTrue(logs.contains("[s1] skipped a line that is not JSON:   ??[31mred?[0m"), logs.lines()::toString);
    assertTrue(logs.contains("[s1] skipped a line that is not a JSON-RPC object: \"a string\""), logs.lines()::toString);
  }
}
