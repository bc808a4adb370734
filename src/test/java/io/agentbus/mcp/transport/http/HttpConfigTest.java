package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.agentbus.config.McpConfig;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.transport.McpTransports;
import io.agentbus.options.EnvExpander;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** mcp.json entries with a url become HTTP transports, with headers expanded. */
@ExtendWith(VertxExtension.class)
class HttpConfigTest {

  @Test
  void urlEntriesPickTheHttpTransports(Vertx vertx) {
    JsonObject json = new JsonObject().put("mcpServers", new JsonObject()
      .put("github", new JsonObject().put("url", "https://api.example.com/mcp")
        .put("headers", new JsonObject().put("Authorization", "Bearer ${GITHUB_TOKEN}")))
      .put("forced", new JsonObject().put("type", "http").put("url", "http://127.0.0.1:1/mcp"))
      .put("old", new JsonObject().put("type", "sse").put("url", "http://127.0.0.1:1/sse")));
    McpConfig config = McpConfig.fromJson(json, EnvExpander.of(Map.of("GITHUB_TOKEN", "t0ken")));
    Map<String, McpServerOptions> byName = new java.util.HashMap<>();
    config.servers().forEach(o -> byName.put(o.getName(), o));

    McpServerOptions github = byName.get("github");
    assertEquals(Transport.AUTO_HTTP, github.getTransport());
    assertEquals("Bearer t0ken", github.getHeaders().get("Authorization"));
    assertEquals(Transport.HTTP, byName.get("forced").getTransport());
    assertEquals(Transport.SSE, byName.get("old").getTransport());

    var context = vertx.getOrCreateContext();
    assertInstanceOf(AutoHttpTransport.class, McpTransports.create(vertx, context, github));
    assertInstanceOf(StreamableHttpTransport.class, McpTransports.create(vertx, context, byName.get("forced")));
    assertInstanceOf(LegacySseTransport.class, McpTransports.create(vertx, context, byName.get("old")));
  }
}
