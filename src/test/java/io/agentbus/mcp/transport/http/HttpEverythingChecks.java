package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.EverythingChecks;
import io.agentbus.testing.NodeHttpServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The interop checks run against the real server-everything over one of its HTTP modes,
 * with a bearer token that must never show up in logs or descriptions. Subclasses say which
 * mode and how to configure the client.
 */
abstract class HttpEverythingChecks extends EverythingChecks {

  static final String TOKEN = "tok-7f3a9c1e5b2d4680-secret";

  protected NodeHttpServer server;

  /** @return the server-everything mode: streamableHttp or sse */
  abstract String mode();

  /** @return the client options for the server on {@code port} */
  abstract McpServerOptions options(int port);

  McpServerOptions baseOptions(String name, String url) {
    return new McpServerOptions().setName(name).setUrl(url).setTimeoutMs(10_000).setConnectTimeoutMs(10_000)
      .setHeaders(Map.of("Authorization", "Bearer " + TOKEN, "X-Api-Key", TOKEN));
  }

  @Override
  protected Future<McpServerOptions> startServer(Vertx vertx) {
    return NodeHttpServer.start(vertx, context, mode()).map(s -> {
      server = s;
      return options(s.port());
    });
  }

  @Override
  protected Future<Void> stopServer(Vertx vertx) {
    // waiting for the process to exit blocks: not on an event loop
    return vertx.executeBlocking(() -> {
      if (server != null) {
        server.close();
      }
      return null;
    }, false);
  }

  @Override
  protected void afterAll() {
    assertFalse(logs.contains(TOKEN.substring(4)), "a header value was logged");
  }

  @Test
  void describesTheConnectionWithoutTheToken() {
    assertFalse(client.describe().encode().contains(TOKEN.substring(4)));
  }
}
