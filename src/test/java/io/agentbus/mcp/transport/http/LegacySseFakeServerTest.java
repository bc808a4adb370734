package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Auto fallback and the legacy HTTP+SSE transport against a scripted 2024-11-05 server. */
@ExtendWith(VertxExtension.class)
class LegacySseFakeServerTest {

  /** A legacy server on /mcp: POST there is 405, GET opens the stream, messages go to the endpoint. */
  static final class LegacyServer {
    final List<String> seen = new CopyOnWriteArrayList<>();
    String endpoint = "/messages?sid=abc";
    HttpServer server;
    HttpServerResponse stream;

    Future<LegacyServer> start(Vertx vertx) {
      server = vertx.createHttpServer().requestHandler(this::handle);
      return server.listen(0, "127.0.0.1").map(this);
    }

    String url() {
      return "http://127.0.0.1:" + server.actualPort() + "/mcp";
    }

    private void handle(HttpServerRequest req) {
      seen.add(req.method() + " " + req.uri());
      if (req.path().equals("/mcp") && req.method() == HttpMethod.GET) {
        stream = FakeMcpServer.startSse(req.response());
        stream.write("event: endpoint\ndata: " + endpoint + "\n\n");
      } else if (req.path().equals("/messages") && req.method() == HttpMethod.POST && "abc".equals(req.getParam("sid"))) {
        req.body().onSuccess(buf -> {
          JsonObject msg = buf.toJsonObject();
          req.response().setStatusCode(202).end("Accepted");
          answer(msg);
        });
      } else {
        req.response().setStatusCode(405).end();
      }
    }

    private void answer(JsonObject msg) {
      if (msg.getValue("id") == null || msg.getString("method") == null) {
        return;
      }
      JsonObject reply = switch (msg.getString("method")) {
        case "initialize" -> FakeMcpServer.result(msg, new JsonObject().put("protocolVersion", "2024-11-05")
          .put("capabilities", new JsonObject().put("tools", new JsonObject()))
          .put("serverInfo", new JsonObject().put("name", "legacy").put("version", "1")));
        case "tools/list" -> FakeMcpServer.result(msg, new JsonObject().put("tools", new JsonArray()));
        case "tools/call" -> FakeMcpServer.toolResult(msg, "legacy: "
          + msg.getJsonObject("params").getJsonObject("arguments").getString("message"));
        default -> FakeMcpServer.result(msg, new JsonObject());
      };
      stream.write("event: message\ndata: " + reply.encode() + "\n\n");
    }
  }

  private static McpServerOptions options(String url, McpServerOptions.Transport transport) {
    return new McpServerOptions().setName("legacy").setUrl(url).setTransport(transport)
      .setTimeoutMs(5_000).setConnectTimeoutMs(5_000);
  }

  @Test
  void autoFallsBackToLegacySse(Vertx vertx, VertxTestContext ctx) {
    new LegacyServer().start(vertx).compose(server -> {
      McpClient client = McpClient.create(vertx, options(server.url(), McpServerOptions.Transport.AUTO_HTTP));
      return client.connect()
        .compose(init -> client.callTool("echo", new JsonObject().put("message", "hi"), null))
        .map(result -> {
          ctx.verify(() -> {
            assertEquals("legacy: hi", result.getJsonArray("content").getJsonObject(0).getString("text"));
            assertEquals("2024-11-05", client.protocolVersion());
            assertEquals("sse", client.describe().getString("transport"));
            assertEquals(McpServerOptions.Transport.SSE, AutoHttpTransport.verdict(server.url()));
            assertEquals("POST /mcp", server.seen.get(0));
            assertEquals("GET /mcp", server.seen.get(1));
          });
          return client;
        })
        .compose(McpClient::close);
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void anEndpointOnAnotherOriginIsRefused(Vertx vertx, VertxTestContext ctx) {
    LegacyServer legacy = new LegacyServer();
    legacy.endpoint = "http://evil.example:9/messages?sid=abc";
    legacy.start(vertx).compose(server ->
        McpClient.create(vertx, options(server.url(), McpServerOptions.Transport.SSE)).connect())
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        McpException e = assertInstanceOf(McpException.class, err);
        assertEquals(Kind.PROTOCOL, e.kind());
        assertTrue(e.getMessage().contains("another origin"), e.getMessage());
        assertFalse(legacy.seen.stream().anyMatch(s -> s.startsWith("POST")), legacy.seen::toString);
        ctx.completeNow();
      })));
  }

  @Test
  void autoReportsBothFailuresWhenNeitherTransportWorks(Vertx vertx, VertxTestContext ctx) {
    vertx.createHttpServer().requestHandler(req -> req.response().setStatusCode(404).end("nothing here"))
      .listen(0, "127.0.0.1")
      .compose(s -> McpClient.create(vertx, options("http://127.0.0.1:" + s.actualPort() + "/mcp",
        McpServerOptions.Transport.AUTO_HTTP)).connect())
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertTrue(err.getMessage().contains("neither transport works"), err.getMessage());
        assertTrue(err.getMessage().contains("HTTP 404"), err.getMessage());
        ctx.completeNow();
      })));
  }
}
