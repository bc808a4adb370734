package io.agentbus.mcp.transport.http;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;

/** The MCP client against the real server-everything over legacy HTTP+SSE. */
@Integration
class LegacySseEverythingInteropTest extends HttpEverythingChecks {

  @Override
  String mode() {
    return "sse";
  }

  @Override
  McpServerOptions options(int port) {
    return baseOptions("everything-sse", "http://127.0.0.1:" + port + "/sse")
      .setTransport(McpServerOptions.Transport.SSE);
  }

  @Test
  void describesTheLegacyTransport() {
    JsonObject d = client.describe();
    assertEquals("sse", d.getString("transport"));
    assertTrue(d.getBoolean("connected"));
  }

  @Test
  void autoFallsBackToLegacySseAndRemembersIt(Vertx vertx, VertxTestContext ctx) {
    String url = "http://127.0.0.1:" + server.port() + "/sse";
    McpServerOptions options = baseOptions("everything-auto", url).setTransport(McpServerOptions.Transport.AUTO_HTTP);
    context.runOnContext(v -> {
      McpClient auto = McpClient.create(vertx, options);
      auto.connect()
        .compose(init -> auto.callTool("echo", new JsonObject().put("message", "fallback"), null))
        .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
          assertEquals("Echo: fallback", result.getJsonArray("content").getJsonObject(0).getString("text"));
          assertEquals("sse", auto.describe().getString("transport"));
          assertEquals(McpServerOptions.Transport.SSE, AutoHttpTransport.verdict(url));
          auto.close().onComplete(ctx.succeedingThenComplete());
        })));
    });
  }
}
