package io.agentbus.mcp;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.FakeStdioServer;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The MCP client against a scripted stdio server that misbehaves on purpose. */
@Integration
@ExtendWith(VertxExtension.class)
class StdioFaultTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private static McpServerOptions fake(String name, String... args) {
    return InteropServers.javaMain(name, FakeStdioServer.class, args);
  }

  private static void withClient(Vertx vertx, VertxTestContext ctx, McpServerOptions options,
                                 Consumer<McpClient> configure, java.util.function.Function<McpClient, Future<?>> body) {
    McpClient client = McpClient.create(vertx, options);
    configure.accept(client);
    client.connect().compose(init -> body.apply(client))
      .eventually(client::close)
      .onComplete(ctx.succeedingThenComplete());
  }

  private static McpException mcp(Throwable err) {
    return assertInstanceOf(McpException.class, err);
  }

  @Test
  void garbageUnknownIdsAndOversizedLinesAreSkipped(Vertx vertx, VertxTestContext ctx) {
    McpServerOptions options = fake("garbage", "garbage", "20000").setMaxMessageBytes(8192);
    withClient(vertx, ctx, options, c -> { }, client -> client.callTool("echo", new JsonObject().put("message", "still fine"), null)
      .map(result -> {
        ctx.verify(() -> {
          assertEquals("Echo: still fine", result.getJsonArray("content").getJsonObject(0).getString("text"));
          assertTrue(logs.contains("[garbage] skipped a line that is not JSON: this is not json"));
          assertTrue(logs.contains("[garbage] skipped a line that is not a JSON-RPC object"));
          assertTrue(logs.contains("[garbage] dropped a response with unknown id 999"));
          assertTrue(logs.contains("[garbage] skipped a 20"));
        });
        return result;
      }));
  }

  @Test
  void exitDuringInitializeFailsConnectPromptly(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("dies", "exit-during-init").setConnectTimeoutMs(20_000));
    client.connect().onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(McpException.Kind.CONNECTION_CLOSED, mcp(err).kind());
      assertTrue(err.getMessage().contains("server 'dies' exited (code 3)"), err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void silentServerFailsConnectAtTheConnectTimeout(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("silent", "silent-init").setConnectTimeoutMs(1_500));
    client.connect().onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(McpException.Kind.TIMEOUT, mcp(err).kind());
      assertTrue(err.getMessage().contains("server 'silent' was not ready within 1500 ms"), err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void unsupportedProtocolVersionIsAClearConnectFailure(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("old", "bad-version"));
    client.connect().onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(McpException.Kind.UNSUPPORTED_VERSION, mcp(err).kind());
      assertTrue(err.getMessage().contains("1999-01-01"), err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void exitMidCallFailsTheCallWithTheExitCode(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("crashy", "plain"));
    Promise<Throwable> closed = Promise.promise();
    client.closeHandler(closed::tryComplete);
    client.connect()
      .compose(init -> Future.join(client.callTool("hang", new JsonObject(), null), client.callTool("die", new JsonObject(), null)))
      .onComplete(ctx.failing(err -> closed.future().onComplete(ctx.succeeding(cause -> ctx.verify(() -> {
        assertEquals(McpException.Kind.CONNECTION_CLOSED, mcp(err).kind());
        assertTrue(err.getMessage().contains("server 'crashy' exited (code 7)"), err.getMessage());
        assertEquals(McpClient.Status.CLOSED, client.status());
        ctx.completeNow();
      })))));
  }

  @Test
  void timeoutFailsTheCallAndCancelsItAtTheServer(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("hangs", "plain"));
    Promise<String> cancelledSeen = Promise.promise();
    client.logMessageHandler(params -> {
      String data = String.valueOf(params.getValue("data"));
      if (data.startsWith("cancelled ")) {
        cancelledSeen.tryComplete(data);
      }
    });
    client.connect()
      .compose(init -> client.callTool("hang", new JsonObject(), new CallOptions().setTimeoutMs(300)))
      .onComplete(ctx.failing(err -> {
        ctx.verify(() -> {
          assertEquals(McpException.Kind.TIMEOUT, mcp(err).kind());
          assertTrue(err.getMessage().contains("tools/call to server 'hangs' timed out"), err.getMessage());
        });
        cancelledSeen.future().onComplete(ctx.succeeding(data -> ctx.verify(() -> {
          // ids start at 1 (initialize), 2 (tools/list): the call is 3
          assertEquals("cancelled 3", data);
          client.close().onComplete(ctx.succeedingThenComplete());
        })));
      }));
  }

  @Test
  void toolListingFollowsEveryCursor(Vertx vertx, VertxTestContext ctx) {
    withClient(vertx, ctx, fake("paged", "paged"), c -> { }, client -> {
      ctx.verify(() -> assertEquals(List.of("echo", "hang", "die", "extra-1", "extra-2"),
        client.tools().stream().map(t -> t.getString("name")).toList()));
      return Future.succeededFuture();
    });
  }

  @Test
  void unsupportedServerRequestsAreAnsweredWithMethodNotFound(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("asker", "ask-client"));
    var answers = new java.util.ArrayList<String>();
    Promise<List<String>> both = Promise.promise();
    client.logMessageHandler(params -> {
      answers.add(String.valueOf(params.getValue("data")));
      if (answers.size() == 2) {
        both.tryComplete(answers);
      }
    });
    client.connect().compose(init -> both.future()).onComplete(ctx.succeeding(list -> ctx.verify(() -> {
      assertTrue(list.contains("answer to 0: error -32601"), list::toString);
      assertTrue(list.contains("answer to p1: result {}"), list::toString);
      client.close().onComplete(ctx.succeedingThenComplete());
    })));
  }

  @Test
  void closeFailsEverythingPendingExactlyOnce(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, fake("closer", "plain"));
    client.connect().onComplete(ctx.succeeding(init -> {
      Future<JsonObject> a = client.callTool("hang", new JsonObject(), null);
      Future<JsonObject> b = client.callTool("hang", new JsonObject(), null);
      client.close().onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertTrue(a.failed() && b.failed());
        assertEquals(McpException.Kind.CONNECTION_CLOSED, mcp(a.cause()).kind());
        assertEquals(McpClient.Status.CLOSED, client.status());
        ctx.completeNow();
      })));
    }));
  }
}
