package io.agentbus.mcp.transport.http;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.config.McpServerOptions;
import io.agentbus.mcp.McpClient;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;

/** The MCP client against the real server-everything over Streamable HTTP. */
@Integration
class StreamableHttpEverythingInteropTest extends HttpEverythingChecks {

  @Override
  String mode() {
    return "streamableHttp";
  }

  @Override
  McpServerOptions options(int port) {
    return baseOptions("everything-http", "http://127.0.0.1:" + port + "/mcp")
      .setTransport(McpServerOptions.Transport.HTTP);
  }

  @Test
  void describesTheSessionWithoutSecrets() {
    JsonObject d = client.describe();
    assertEquals("http", d.getString("transport"));
    assertTrue(d.getBoolean("session"));
    assertTrue(d.getBoolean("getStream"));
    assertEquals("http://127.0.0.1:" + server.port() + "/mcp", d.getString("url"));
  }

  @Test
  void closeDeletesTheSession(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = options(server.port()).setName("everything-delete");
    context.runOnContext(v -> {
      StreamableHttpTransport transport = new StreamableHttpTransport(vertx, context, options);
      McpClient second = McpClient.create(vertx, options, transport);
      HttpClient raw = vertx.createHttpClient();
      second.connect().compose(init -> {
        String session = transport.sessionId();
        assertNotNull(session);
        return second.close().compose(x -> raw.request(new RequestOptions().setMethod(HttpMethod.POST)
            .setAbsoluteURI("http://127.0.0.1:" + server.port() + "/mcp")
            .putHeader("Content-Type", "application/json")
            .putHeader("Accept", "application/json, text/event-stream")
            .putHeader("Mcp-Session-Id", session)))
          .compose(req -> req.send(Buffer.buffer("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}")));
      }).onComplete(ctx.succeeding(resp -> ctx.verify(() -> {
        assertTrue(resp.statusCode() == 400 || resp.statusCode() == 404, "status " + resp.statusCode());
        raw.close();
        ctx.completeNow();
      })));
    });
  }
}
