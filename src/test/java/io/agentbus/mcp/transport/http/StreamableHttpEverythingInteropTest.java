package io.agentbus.mcp.transport.http;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.util.Set;
import java.util.stream.Collectors;
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

  /**
   * server-everything sends {@code tools/list_changed} while it handles
   * {@code notifications/initialized}. Over Streamable HTTP that goes to the GET stream, which
   * Agentbus opens only once {@code initialized} was accepted (nothing else is sent before it),
   * so the TypeScript SDK drops it. Nothing is lost: the tools it announces were registered
   * before the server answered {@code initialized}, and the first {@code tools/list} came after
   * that. A {@code list_changed} on the GET stream is covered by {@code JavaSdkInteropTest}.
   */
  @Override
  @Test
  public void listChangedArrivesOnTheServerStreamAndTriggersARelist(VertxTestContext ctx) {
    client.request("tools/list", new JsonObject()).onComplete(ctx.succeeding(page -> ctx.verify(() -> {
      Set<String> current = page.getJsonArray("tools").stream().map(t -> (JsonObject) t)
        .filter(t -> !(t.getValue("execution") instanceof JsonObject e && "required".equals(e.getValue("taskSupport"))))
        .map(t -> t.getString("name")).collect(Collectors.toSet());
      Set<String> first = client.tools().stream().map(t -> t.getString("name")).collect(Collectors.toSet());
      assertEquals(current, first, "the first tools/list already had every tool");
      assertTrue(client.describe().getBoolean("getStream"));
      ctx.completeNow();
    })));
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
