package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.limits.Suppressed;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A real child that prints 100,000 lines of garbage to stdout and as many to stderr: the
 * transport logs a few lines of each and the counts, and the message after the garbage
 * still gets through.
 */
@Integration
@ExtendWith(VertxExtension.class)
class StdioFloodTest {

  private static final int FLOOD = 100_000;
  private static final String STDOUT_LOG = StdioTransport.class.getName();
  private static final String STDERR_LOG = ServerStderrAtInfo.LOGGER;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @RegisterExtension
  final ServerStderrAtInfo stderrAtInfo = new ServerStderrAtInfo();

  private long lines(String prefix) {
    return logs.lines().stream().filter(l -> l.startsWith(prefix)).count();
  }

  @Test
  void aFloodingServerCostsAFewLinesAndACount(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = InteropServers.javaMain("flood", StdioChild.class, "flood", String.valueOf(FLOOD));
    Context context = vertx.getOrCreateContext();
    context.runOnContext(v -> {
      StdioTransport transport = new StdioTransport(vertx, context, options);
      Promise<JsonObject> flooded = Promise.promise();
      long start = System.nanoTime();
      transport.start(msg -> flooded.tryComplete(msg))
        .compose(started -> flooded.future())
        .compose(msg -> transport.close().map(msg))
        .onComplete(ctx.succeeding(msg -> ctx.verify(() -> {
          long ms = (System.nanoTime() - start) / 1_000_000;
          assertEquals("notifications/flooded", msg.getString("method"));
          List<String> all = logs.lines();
          long stdoutLines = lines("WARN " + STDOUT_LOG + " [flood] skipped a line that is not JSON: this is not json ");
          long stderrLines = lines("INFO " + STDERR_LOG + " [flood] noise on stderr ");
          long bytes = all.stream().filter(l -> l.contains("[flood]")).mapToLong(l -> l.length() + 1).sum();
          System.out.println("StdioFloodTest: " + FLOOD + " garbage lines on each stream in " + ms + " ms -> "
            + stdoutLines + " stdout warnings, " + stderrLines + " stderr lines, "
            + all.stream().filter(l -> l.contains("[flood]")).count() + " lines (" + bytes + " bytes) logged for the server");
          // one window, unless the machine took more than 10 s for the flood
          long windows = 1 + ms / LogRateLimit.DEFAULT_WINDOW_MS;
          assertTrue(stdoutLines >= 5 && stdoutLines <= 5 * windows, "stdout warnings: " + stdoutLines);
          assertTrue(stderrLines >= 50 && stderrLines <= 50 * windows, "stderr lines: " + stderrLines);
          assertEquals(FLOOD, stdoutLines + Suppressed.count(all, "flood", "stdout lines that are not JSON"), all::toString);
          assertEquals(FLOOD, stderrLines + Suppressed.count(all, "flood", "stderr lines"), all::toString);
          ctx.completeNow();
        })));
    });
  }
}
