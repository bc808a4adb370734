package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.limits.LogRateLimit;
import io.agentbus.limits.Suppressed;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.LogCapture;
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
 * HTTP servers that stream garbage: whatever is not a message costs a few warnings per kind
 * and a count, however much of it arrives, and the messages after it still get through.
 */
@ExtendWith(VertxExtension.class)
class HttpFloodTest {

  private static final String READER_LOG = MessageReader.class.getName();
  private static final int FLOOD = 20_000;
  private static final int OVERSIZED = 500;
  private static final int MAX_BYTES = 4096;

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  /**
   * {@code n} events that are not JSON, {@code n} that are JSON but no object (a number, or a
   * batch of one number) and {@code oversized} that are too large.
   */
  private static String garbage(int n, int oversized) {
    StringBuilder sse = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sse.append("data: not json ").append(i).append("\n\n");
      sse.append("data: ").append(i % 2 == 0 ? "[" + i + "]" : String.valueOf(i)).append("\n\n");
    }
    String big = "x".repeat(MAX_BYTES + 1);
    for (int i = 0; i < oversized; i++) {
      sse.append("data: ").append(big).append("\n\n");
    }
    return sse.toString();
  }

  private long warnings(String server, String text) {
    return logs.lines().stream().filter(l -> l.startsWith("WARN " + READER_LOG + " [" + server + "] " + text)).count();
  }

  private void assertFloodCost(String server) {
    List<String> all = logs.lines();
    long notJson = warnings(server, "skipped a message that is not JSON (");
    long notObject = warnings(server, "skipped a message that is not a JSON-RPC object");
    long oversized = warnings(server, "skipped an SSE event over the " + MAX_BYTES + "-byte limit");
    int max = 2 * LogRateLimit.DEFAULT_MAX_LINES;
    assertTrue(notJson >= 5 && notJson <= max && notObject >= 5 && notObject <= max && oversized >= 5 && oversized <= max,
      notJson + " / " + notObject + " / " + oversized + ": " + all);
    assertEquals(FLOOD, notJson + Suppressed.count(all, server, "messages that are not JSON"), all::toString);
    assertEquals(FLOOD, notObject + Suppressed.count(all, server, "messages that are not a JSON-RPC object"));
    assertEquals(OVERSIZED, oversized + Suppressed.count(all, server, "SSE events over the size limit"));
  }

  @Test
  void garbageOnTheGetStreamOfAStreamableHttpServer(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.onGet = req -> FakeMcpServer.startSse(req.response()).write(garbage(FLOOD, OVERSIZED)
        + "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n");
      Promise<List<JsonObject>> relisted = Promise.promise();
      McpClient client = McpClient.create(vertx, new McpServerOptions().setName("flood-http").setUrl(fake.url())
        .setTransport(McpServerOptions.Transport.HTTP).setMaxMessageBytes(MAX_BYTES).setTimeoutMs(10_000));
      client.toolsChangedHandler(relisted::tryComplete);
      return client.connect().compose(init -> relisted.future()).eventually(client::close);
    }).onComplete(ctx.succeeding(tools -> ctx.verify(() -> {
      assertEquals("echo", tools.get(0).getString("name"), "the notification after the garbage got through");
      assertFloodCost("flood-http");
      ctx.completeNow();
    })));
  }

  @Test
  void garbageAndEndpointEventsOnALegacySseStream(Vertx vertx, VertxTestContext ctx) {
    LegacySseFakeServerTest.LegacyServer legacy = new LegacySseFakeServerTest.LegacyServer();
    legacy.start(vertx).compose(server -> {
      McpClient client = McpClient.create(vertx, new McpServerOptions().setName("flood-sse").setUrl(server.url())
        .setTransport(McpServerOptions.Transport.SSE).setMaxMessageBytes(MAX_BYTES).setTimeoutMs(10_000));
      return client.connect().compose(init -> {
        legacy.stream.write(garbage(FLOOD, OVERSIZED) + "event: endpoint\ndata: /messages?sid=abc\n\n".repeat(FLOOD));
        // the answer comes on the same stream, after all of it
        return client.callTool("echo", new JsonObject().put("message", "after"), null);
      }).eventually(client::close);
    }).onComplete(ctx.succeeding(result -> ctx.verify(() -> {
      assertEquals("legacy: after", result.getJsonArray("content").getJsonObject(0).getString("text"));
      assertFloodCost("flood-sse");
      List<String> all = logs.lines();
      long endpoints = all.stream().filter(l -> l.contains("[flood-sse] ignored a second endpoint event")).count();
      assertTrue(endpoints >= 5 && endpoints <= 10, "endpoint warnings: " + endpoints);
      assertEquals(FLOOD, endpoints + Suppressed.count(all, "flood-sse", "endpoint events after the first"));
      ctx.completeNow();
    })));
  }
}
