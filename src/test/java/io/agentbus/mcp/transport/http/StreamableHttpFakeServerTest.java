package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Streamable HTTP against a scripted fake server: what real servers rarely do. */
@ExtendWith(VertxExtension.class)
class StreamableHttpFakeServerTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private static final String TOKEN = "fake-token-5e8b1c2d9a7f";

  private static McpServerOptions options(String url) {
    return new McpServerOptions().setName("fake").setUrl(url).setTransport(McpServerOptions.Transport.HTTP)
      .setTimeoutMs(5_000).setConnectTimeoutMs(5_000).setHeaders(Map.of("Authorization", "Bearer " + TOKEN));
  }

  private static Future<McpClient> connect(Vertx vertx, FakeMcpServer fake) {
    McpClient client = McpClient.create(vertx, options(fake.url()));
    return client.connect().map(client);
  }

  private static Future<JsonObject> echo(McpClient client, String text) {
    return client.callTool("echo", new JsonObject().put("message", text), null);
  }

  private static String text(JsonObject result) {
    return result.getJsonArray("content").getJsonObject(0).getString("text");
  }

  @Test
  void plainJsonRepliesAndHeaders(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.sseReplies = false;
      return connect(vertx, fake).compose(c -> echo(c, "json").onComplete(ar -> c.close()))
        .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
          assertEquals("Echo: json", text(result));
          FakeMcpServer.Seen init = fake.posts("initialize").get(0);
          assertNull(init.header("Mcp-Session-Id"));
          assertEquals("application/json, text/event-stream", init.header("Accept"));
          assertEquals("Bearer " + TOKEN, init.header("Authorization"));
          FakeMcpServer.Seen call = fake.posts("tools/call").get(0);
          assertEquals("session-1", call.header("Mcp-Session-Id"));
          assertEquals("2025-11-25", call.header("MCP-Protocol-Version"));
          assertEquals("application/json", call.header("Content-Type"));
          ctx.completeNow();
        })));
    });
  }

  @Test
  void primingEventsCommentsAndAcceptedBodiesAreIgnored(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.acceptedBody = "{\"ok\":true}";
      fake.onCall = (req, msg) -> FakeMcpServer.startSse(req.response())
        .write("id: prime-1\ndata:\n\n")
        .compose(v -> req.response().write(": keep-alive comment\r\n\r\n"))
        .compose(v -> req.response().end("event: message\r\nid: 2\r\ndata: "
          + FakeMcpServer.toolResult(msg, "primed").encode() + "\r\n\r\n"));
      return connect(vertx, fake).compose(c -> echo(c, "x").onComplete(ar -> c.close()));
    }).onComplete(ctx.succeeding(result -> ctx.verify(() -> {
      assertEquals("primed", text(result));
      ctx.completeNow();
    })));
  }

  @Test
  void sessionExpiryMidConversationIsTransparent(Vertx vertx, VertxTestContext ctx) {
    sessionExpiry(vertx, ctx, 404, "");
  }

  @Test
  void sessionExpiryAsTheTypeScriptSdkReportsIt(Vertx vertx, VertxTestContext ctx) {
    sessionExpiry(vertx, ctx, 400, "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,"
      + "\"message\":\"Bad Request: No valid session ID provided\"},\"id\":null}");
  }

  private void sessionExpiry(Vertx vertx, VertxTestContext ctx, int status, String body) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.sessionGoneStatus = status;
      fake.sessionGoneBody = body;
      return connect(vertx, fake).compose(c -> echo(c, "before").compose(first -> {
        fake.expireSession();
        List<Future<JsonObject>> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          calls.add(echo(c, "after-" + i));
        }
        return Future.all(calls).map(all -> {
          List<String> texts = new ArrayList<>();
          calls.forEach(f -> texts.add(text(f.result())));
          return texts;
        });
      }).onComplete(ar -> c.close())).onComplete(ctx.succeeding(texts -> ctx.verify(() -> {
        assertEquals(List.of("Echo: after-0", "Echo: after-1", "Echo: after-2"), texts);
        assertEquals(2, fake.initializeCount, "exactly one transparent re-initialize");
        assertEquals(2, fake.posts("notifications/initialized").size());
        FakeMcpServer.Seen reinit = fake.posts("initialize").get(1);
        assertEquals("agentbus-reinit-1", reinit.body().getValue("id"));
        assertNull(reinit.header("Mcp-Session-Id"));
        assertTrue(logs.contains("[fake] session expired; re-initializing"), logs.lines()::toString);
        assertFalse(logs.contains("agentbus-reinit"), "the internal id leaked to the client");
        ctx.completeNow();
      })));
    });
  }

  @Test
  void retryThenDisconnectThenResumeWithLastEventId(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      JsonObject[] pending = new JsonObject[1];
      fake.onCall = (req, msg) -> {
        pending[0] = msg;
        FakeMcpServer.startSse(req.response()).write("id: e-1\nretry: 50\ndata:\n\n")
          .onSuccess(v -> req.connection().close());
      };
      fake.onGet = req -> {
        if ("e-1".equals(req.getHeader("Last-Event-ID")) && pending[0] != null) {
          FakeMcpServer.startSse(req.response()).end("id: e-2\ndata: "
            + FakeMcpServer.toolResult(pending[0], "resumed").encode() + "\n\n");
        } else {
          req.response().setStatusCode(405).end();
        }
      };
      return connect(vertx, fake).compose(c -> echo(c, "x").onComplete(ar -> c.close()))
        .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
          assertEquals("resumed", text(result));
          assertTrue(fake.seen.stream().anyMatch(s -> "e-1".equals(s.header("Last-Event-ID"))));
          ctx.completeNow();
        })));
    });
  }

  @Test
  void aGetStreamThatEndsAtOnceWithRetryZeroIsReopenedWithBackOffNotInALoop(Vertx vertx, VertxTestContext ctx) {
    List<Long> gets = new CopyOnWriteArrayList<>();
    Promise<Void> fourth = Promise.promise();
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.onGet = req -> {
        gets.add(System.nanoTime());
        FakeMcpServer.startSse(req.response()).end("retry: 0\n\n");
        if (gets.size() == 4) {
          fourth.tryComplete();
        }
      };
      return connect(vertx, fake).compose(c -> fourth.future().eventually(c::close));
    }).onComplete(ctx.succeeding(v -> ctx.verify(() -> {
      List<Long> gapsMs = new ArrayList<>();
      for (int i = 1; i < 4; i++) {
        gapsMs.add((gets.get(i) - gets.get(i - 1)) / 1_000_000);
      }
      // at least the floor (250 ms), doubling while each stream ends right after opening
      assertTrue(gapsMs.get(0) >= StandaloneStream.MIN_RECONNECT_MS - 10, gapsMs::toString);
      assertTrue(gapsMs.get(1) >= 2 * StandaloneStream.MIN_RECONNECT_MS - 10, gapsMs::toString);
      assertTrue(gapsMs.get(2) >= 4 * StandaloneStream.MIN_RECONNECT_MS - 10, gapsMs::toString);
      ctx.completeNow();
    })));
  }

  @Test
  void aStreamThatNeverEndsTimesOutCleanly(Vertx vertx, VertxTestContext ctx) {
    Checkpoint streamReset = ctx.checkpoint();
    Checkpoint callTimedOut = ctx.checkpoint();
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.onCall = (req, msg) -> {
        req.connection().closeHandler(v -> streamReset.flag());
        FakeMcpServer.startSse(req.response()).write("id: 1\ndata:\n\n");
      };
      return connect(vertx, fake).compose(c -> c.callTool("echo", new JsonObject().put("message", "x"),
          new CallOptions().setTimeoutMs(300)).andThen(ar -> c.close()))
        .onComplete(ctx.failing(err -> ctx.verify(() -> {
          McpException e = assertInstanceOf(McpException.class, err);
          assertEquals(Kind.TIMEOUT, e.kind());
          callTimedOut.flag();
        })));
    });
  }

  @Test
  void anOversizedEventFailsThatCallOnly(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.onCall = (req, msg) -> {
        String text = msg.getJsonObject("params").getJsonObject("arguments").getString("message");
        fake.reply(req, FakeMcpServer.toolResult(msg, text.equals("big") ? "x".repeat(20_000) : "small"));
      };
      McpClient client = McpClient.create(vertx, options(fake.url()).setMaxMessageBytes(8_192));
      long start = System.nanoTime();
      return client.connect()
        .compose(init -> echo(client, "big").map(r -> "unexpected success").recover(err -> Future.succeededFuture(
          ((McpException) err).kind() + " " + err.getMessage() + " " + ((System.nanoTime() - start) / 1_000_000))))
        .compose(failure -> echo(client, "small").map(r -> List.of(failure, text(r))))
        .andThen(ar -> client.close());
    }).onComplete(ctx.succeeding(outcome -> ctx.verify(() -> {
      assertTrue(outcome.get(0).startsWith("PROTOCOL "), outcome.get(0));
      assertTrue(outcome.get(0).contains("8192-byte"), outcome.get(0));
      long ms = Long.parseLong(outcome.get(0).substring(outcome.get(0).lastIndexOf(' ') + 1));
      assertTrue(ms < 4_000, "failed only after " + ms + " ms");
      assertEquals("small", outcome.get(1));
      ctx.completeNow();
    })));
  }

  @Test
  void serverErrorsSurfaceOnTheCallWithoutSecrets(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      // a careless server that echoes the Authorization header in its error page
      fake.onCall = (req, msg) -> req.response().setStatusCode(503)
        .end("overloaded; you sent " + req.getHeader("Authorization"));
      return connect(vertx, fake).compose(c -> echo(c, "x").andThen(ar -> c.close()));
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, err);
      assertEquals(Kind.TRANSPORT, e.kind());
      assertTrue(e.getMessage().contains("HTTP 503"), e.getMessage());
      assertTrue(e.getMessage().contains("overloaded"), e.getMessage());
      assertFalse(e.getMessage().contains(TOKEN), e.getMessage());
      assertTrue(logs.contains("[fake] ready: "), "the client's start was not captured: the check below would prove nothing");
      assertFalse(logs.contains(TOKEN), "the token was logged");
      ctx.completeNow();
    })));
  }

  @Test
  void connectionRefusedIsAClearError(Vertx vertx, VertxTestContext ctx) throws IOException {
    // a bound socket that never listens holds the port, so no other test can take it, and refuses connections
    Socket holder = new Socket();
    holder.bind(new InetSocketAddress("127.0.0.1", 0));
    int port = holder.getLocalPort();
    McpClient.create(vertx, options("http://127.0.0.1:" + port + "/mcp")).connect()
      .onComplete(ar -> closeQuietly(holder))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        McpException e = assertInstanceOf(McpException.class, err);
        assertEquals(Kind.TRANSPORT, e.kind());
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
        assertFalse(e.getMessage().contains(TOKEN));
        ctx.completeNow();
      })));
  }

  @Test
  void aServerGoneForGoodEndsTheConnection(Vertx vertx, VertxTestContext ctx) {
    Checkpoint closed = ctx.checkpoint();
    FakeMcpServer.start(vertx).compose(fake -> connect(vertx, fake).compose(c -> {
      c.closeHandler(cause -> ctx.verify(() -> {
        McpException e = assertInstanceOf(McpException.class, cause);
        assertEquals(Kind.CONNECTION_CLOSED, e.kind());
        assertTrue(e.getMessage().contains("unreachable"), e.getMessage());
        assertEquals(McpClient.Status.CLOSED, c.status());
        closed.flag();
      }));
      return fake.close().compose(v -> callUntilClosed(c, 0));
    })).onComplete(ctx.succeeding(failures -> ctx.verify(() -> {
      // the first calls may also fail on pooled connections the server just closed
      assertTrue(failures >= StreamableHttpTransport.MAX_CONNECT_FAILURES
        && failures <= StreamableHttpTransport.MAX_CONNECT_FAILURES + 4, "failures: " + failures);
    })));
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Future<Integer> callUntilClosed(McpClient c, int failures) {
    if (c.status() != McpClient.Status.READY) {
      return Future.succeededFuture(failures);
    }
    return echo(c, "x").map(r -> failures).recover(err -> {
      Kind kind = ((McpException) err).kind();
      assertTrue(kind == Kind.TRANSPORT || kind == Kind.CONNECTION_CLOSED, err.getMessage());
      return callUntilClosed(c, failures + 1);
    });
  }
}
