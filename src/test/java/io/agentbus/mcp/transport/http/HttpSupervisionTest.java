package io.agentbus.mcp.transport.http;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.cli.AgentMain;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.agentbus.testing.NodeHttpServer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Supervision and the command line work for HTTP servers as they do for stdio ones. */
@Integration
@ExtendWith(VertxExtension.class)
class HttpSupervisionTest {

  private static Future<JsonObject> ask(Vertx vertx, String action, JsonObject body) {
    return vertx.eventBus().<JsonObject>request(Addresses.mcp("remote"), body,
      new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(30_000)).map(m -> m.body());
  }

  private static Future<JsonObject> status(Vertx vertx, Predicate<JsonObject> match) {
    Promise<JsonObject> p = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.mcpStatus("remote"));
    consumer.handler(m -> {
      if (match.test(m.body())) {
        consumer.unregister();
        p.tryComplete(m.body());
      }
    });
    return p.future();
  }

  private static Future<Void> stop(Vertx vertx, NodeHttpServer node) {
    return vertx.executeBlocking(() -> {
      node.close();
      return null;
    });
  }

  private static JsonObject echo(String text) {
    return new JsonObject().put("name", "echo").put("arguments", new JsonObject().put("message", text));
  }

  @Test
  void anHttpServerThatGoesAwayIsRestartedWhenItComesBack(Vertx vertx, VertxTestContext ctx) {
    var context = vertx.getOrCreateContext();
    NodeHttpServer.start(vertx, context, "streamableHttp").onComplete(ctx.succeeding(node -> {
      McpServerOptions options = new McpServerOptions().setName("remote").setTransport(McpServerOptions.Transport.HTTP)
        .setUrl("http://127.0.0.1:" + node.port() + "/mcp").setRestartInitialBackoffMs(100).setRestartMaxBackoffMs(300)
        .setConnectTimeoutMs(5_000).setTimeoutMs(5_000);
      Future<JsonObject> lost = status(vertx, s -> !"READY".equals(s.getString("status")));
      vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(options.toJson()))
        .compose(id -> ask(vertx, Actions.TOOLS_CALL, echo("before")))
        .compose(r -> {
          ctx.verify(() -> assertEquals("Echo: before", r.getJsonArray("content").getJsonObject(0).getString("text")));
          return stop(vertx, node);
        })
        .compose(v -> Future.any(lost, ask(vertx, Actions.TOOLS_CALL, echo("during")).otherwiseEmpty()))
        .compose(v -> lost)
        .compose(v -> ask(vertx, Actions.TOOLS_CALL, echo("while down")).transform(ar -> {
          ctx.verify(() -> assertEquals(FailureCodes.UNAVAILABLE, assertInstanceOf(ReplyException.class, ar.cause()).failureCode()));
          Future<JsonObject> back = status(vertx, s -> "READY".equals(s.getString("status")));
          return NodeHttpServer.start(vertx, context, "streamableHttp", node.port()).compose(again -> back.map(again));
        }))
        .compose(again -> ask(vertx, Actions.TOOLS_CALL, echo("after")).eventually(() -> stop(vertx, again)))
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals("Echo: after", r.getJsonArray("content").getJsonObject(0).getString("text"));
          ctx.completeNow();
        })));
    }));
  }

  @Test
  void toolsAndCallCommandsWorkAgainstAnHttpServer(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    NodeHttpServer.start(vertx, vertx.getOrCreateContext(), "streamableHttp").onComplete(ctx.succeeding(node -> {
      vertx.executeBlocking(() -> {
        try {
          Path config = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
            .put("remote", new JsonObject().put("url", "http://127.0.0.1:" + node.port() + "/mcp")
              .put("headers", new JsonObject().put("Authorization", "Bearer not-a-real-token")))).encode());
          ByteArrayOutputStream out = new ByteArrayOutputStream();
          ByteArrayOutputStream err = new ByteArrayOutputStream();
          int tools = AgentMain.run(List.of("tools", "--mcp-config", config.toString()), new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
          String listing = out.toString(StandardCharsets.UTF_8);
          out.reset();
          int call = AgentMain.run(List.of("call", "remote", "echo", "{\"message\":\"over http\"}", "--mcp-config", config.toString()),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
          ctx.verify(() -> {
            assertEquals(0, tools, err.toString(StandardCharsets.UTF_8));
            assertTrue(listing.contains("remote (mcp-servers/everything"), listing);
            assertEquals(0, call, err.toString(StandardCharsets.UTF_8));
            assertEquals("Echo: over http", new JsonObject(out.toString(StandardCharsets.UTF_8))
              .getJsonArray("content").getJsonObject(0).getString("text"));
          });
          return null;
        } finally {
          node.close();
        }
      }).onComplete(ctx.succeedingThenComplete());
    }));
  }
}
