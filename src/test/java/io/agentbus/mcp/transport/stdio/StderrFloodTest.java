package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.limits.Suppressed;
import io.agentbus.testing.LogCapture;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A server flooding its stderr costs a few dozen log lines and a count, and its exit is still explained. */
class StderrFloodTest {

  private static final String LOGGER = ServerStderrAtInfo.LOGGER;
  private static final int FLOOD = 100_000;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @RegisterExtension
  final ServerStderrAtInfo stderrAtInfo = new ServerStderrAtInfo();

  @Test
  void aStderrFloodIsLoggedAFewDozenLinesAndACount() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < FLOOD; i++) {
      text.append("noise ").append(i).append('\n');
    }
    text.append("Error: disk full\n");
    StderrLog stderr = new StderrLog("s1");
    stderr.drain(new ByteArrayInputStream(text.toString().getBytes(StandardCharsets.UTF_8)));
    stderr.flush();

    long logged = logs.lines().stream().filter(l -> l.startsWith("INFO " + LOGGER + " [s1] noise ")).count();
    assertEquals(LogRateLimit.OUTPUT_MAX_LINES, logged, "one window's worth");
    assertEquals(FLOOD + 1 - logged, Suppressed.count(logs.lines(), "s1", "stderr lines"), logs.lines()::toString);
    assertTrue(logs.contains("INFO " + LOGGER + " [s1] suppressed 99951 similar lines in the last "), logs.lines()::toString);
    assertEquals("Error: disk full", stderr.summary(), "every line is still kept for the exit report");
  }
}
