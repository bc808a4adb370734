package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.Checkpoint;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The optional GET stream never holds anything up, session renewal has a deadline, and an
 * HTTP error page in place of a JSON-RPC answer fails just that call.
 */
@ExtendWith(VertxExtension.class)
class StreamableHttpLifecycleTest {

  private static McpServerOptions options(FakeMcpServer fake) {
    return new McpServerOptions().setName("fake").setUrl(fake.url()).setTransport(McpServerOptions.Transport.HTTP)
      .setTimeoutMs(10_000).setConnectTimeoutMs(10_000);
  }

  private static Future<JsonObject> echo(McpClient client, String text) {
    return client.callTool("echo", new JsonObject().put("message", text), null);
  }

  private static String text(JsonObject result) {
    return result.getJsonArray("content").getJsonObject(0).getString("text");
  }

  /** Like the Java SDK on Tomcat: the GET is accepted, but no status line is sent until an event exists. */
  private static void holdGets(FakeMcpServer fake, List<HttpServerRequest> held) {
    fake.onGet = held::add;
  }

  private static List<String> methods(FakeMcpServer fake) {
    List<String> order = new ArrayList<>();
    for (FakeMcpServer.Seen s : fake.seen) {
      order.add(s.method() == HttpMethod.POST ? s.body().getString("method") : s.method().name());
    }
    return order;
  }

  @Test
  void aGetStreamWithoutResponseHeadersHoldsUpNothing(Vertx vertx, VertxTestContext ctx) {
    List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    FakeMcpServer.start(vertx).compose(fake -> {
      holdGets(fake, held);
      McpClient client = McpClient.create(vertx, options(fake));
      return client.connect()
        .compose(init -> echo(client, "one"))
        .compose(r -> client.close().map(v -> List.of(text(r), String.join(",", methods(fake)))))
        .onComplete(ar -> held.forEach(req -> req.connection().close()));
    }).onComplete(ctx.succeeding(outcome -> ctx.verify(() -> {
      assertEquals("Echo: one", outcome.get(0));
      List<String> order = List.of(outcome.get(1).split(","));
      // nothing but initialize goes before initialized; the GET comes after it, in the background
      assertEquals(List.of("initialize", "notifications/initialized"), order.subList(0, 2), order.toString());
      assertTrue(order.contains("GET"), order.toString());
      assertEquals("DELETE", order.get(order.size() - 1), order.toString());
      ctx.completeNow();
    })));
  }

  @Test
  void sessionRenewalDoesNotWaitForTheGetStream(Vertx vertx, VertxTestContext ctx) {
    List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    FakeMcpServer.start(vertx).compose(fake -> {
      holdGets(fake, held);
      McpClient client = McpClient.create(vertx, options(fake));
      return client.connect()
        .compose(init -> {
          fake.expireSession();
          return Future.all(echo(client, "a"), echo(client, "b"));
        })
        .map(all -> List.of(text(all.resultAt(0)), text(all.resultAt(1)), "" + fake.initializeCount))
        .eventually(client::close)
        .onComplete(ar -> held.forEach(req -> req.connection().close()));
    }).onComplete(ctx.succeeding(outcome -> ctx.verify(() -> {
      assertEquals(List.of("Echo: a", "Echo: b", "2"), outcome);
      ctx.completeNow();
    })));
  }

  @Test
  void aRenewalAnsweredWith202FailsTheWaitingCallsAtOnce(Vertx vertx, VertxTestContext ctx) {
    Checkpoint closed = ctx.checkpoint();
    Checkpoint failed = ctx.checkpoint();
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.interceptInitialize = (req, msg) -> {
        if (fake.initializeCount == 0) {
          return false;
        }
        req.response().setStatusCode(202).end();
        return true;
      };
      McpClient client = McpClient.create(vertx, options(fake));
      client.closeHandler(cause -> ctx.verify(() -> {
        assertEquals(Kind.CONNECTION_CLOSED, assertInstanceOf(McpException.class, cause).kind());
        closed.flag();
      }));
      return client.connect().compose(init -> {
        fake.expireSession();
        long start = System.nanoTime();
        return Future.join(echo(client, "a"), echo(client, "b"))
          .transform(ar -> Future.succeededFuture(List.of(ar.cause(), (System.nanoTime() - start) / 1_000_000)));
      });
    }).onComplete(ctx.succeeding(outcome -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, outcome.get(0));
      assertEquals(Kind.CONNECTION_CLOSED, e.kind());
      assertTrue(e.getMessage().contains("could not be renewed") && e.getMessage().contains("202"), e.getMessage());
      assertTrue((Long) outcome.get(1) < 5_000, "failed only after " + outcome.get(1) + " ms");
      failed.flag();
    })));
  }

  @Test
  void aRenewalThatIsNeverAnsweredFailsAtItsDeadline(Vertx vertx, VertxTestContext ctx) {
    List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.interceptInitialize = (req, msg) -> {
        if (fake.initializeCount == 0) {
          return false;
        }
        // an event stream that never carries the answer
        held.add(req);
        FakeMcpServer.startSse(req.response()).write(": working on it\n\n");
        return true;
      };
      McpClient client = McpClient.create(vertx, options(fake).setConnectTimeoutMs(700));
      return client.connect().compose(init -> {
        fake.expireSession();
        return echo(client, "a").transform(ar -> Future.succeededFuture(ar.cause()));
      }).eventually(client::close).onComplete(ar -> held.forEach(req -> req.connection().close()));
    }).onComplete(ctx.succeeding(err -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, err);
      assertEquals(Kind.CONNECTION_CLOSED, e.kind());
      assertTrue(e.getMessage().contains("could not be renewed") && e.getMessage().contains("700 ms"), e.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void closingDuringARenewalFailsTheWaitingCallsAndCompletes(Vertx vertx, VertxTestContext ctx) {
    Promise<Void> renewing = Promise.promise();
    List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.interceptInitialize = (req, msg) -> {
        if (fake.initializeCount == 0) {
          return false;
        }
        held.add(req);
        renewing.tryComplete();
        return true;
      };
      McpClient client = McpClient.create(vertx, options(fake));
      return client.connect().compose(init -> {
        fake.expireSession();
        Future<JsonObject> call = echo(client, "a");
        return renewing.future().compose(v -> client.close()).compose(v -> call.transform(ar -> Future.succeededFuture(ar.cause())));
      }).onComplete(ar -> held.forEach(req -> req.connection().close()));
    }).onComplete(ctx.succeeding(err -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, err);
      assertEquals(Kind.CONNECTION_CLOSED, e.kind(), e.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void anErrorPageInsteadOfAnAnswerFailsThatCallOnly(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      fake.onCall = (req, msg) -> {
        String text = msg.getJsonObject("params").getJsonObject("arguments").getString("message");
        if (!text.equals("boom")) {
          fake.echo(req, msg);
          return;
        }
        // what Tomcat sends when the servlet fails
        req.response().setStatusCode(500).putHeader("Content-Type", "text/html;charset=utf-8")
          .end("<!doctype html><html lang=\"en\"><head><title>HTTP Status 500 – Internal Server Error</title></head>"
            + "<body><h1>HTTP Status 500 – Internal Server Error</h1></body></html>");
      };
      McpClient client = McpClient.create(vertx, options(fake));
      return client.connect()
        .compose(init -> echo(client, "boom").transform(ar -> Future.succeededFuture(ar.cause())))
        .compose(err -> echo(client, "after").map(r -> List.of(err, text(r))))
        .eventually(client::close);
    }).onComplete(ctx.succeeding(outcome -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, outcome.get(0));
      assertEquals(Kind.TRANSPORT, e.kind());
      assertTrue(e.getMessage().contains("HTTP 500") && e.getMessage().contains("Internal Server Error"), e.getMessage());
      assertEquals("Echo: after", outcome.get(1));
      ctx.completeNow();
    })));
  }

  @Test
  void aJsonErrorBodyIsReducedToItsMessage(Vertx vertx, VertxTestContext ctx) {
    FakeMcpServer.start(vertx).compose(fake -> {
      // the Java SDK serializes its exception (stack trace included) as the body of a 500
      fake.onCall = (req, msg) -> req.response().setStatusCode(500).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("jsonRpcError", new JsonObject().put("code", -32603).put("message", "Error processing message"))
          .put("stackTrace", new io.vertx.core.json.JsonArray().add(new JsonObject().put("className", "a.b.C"))).encode());
      McpClient client = McpClient.create(vertx, options(fake));
      return client.connect().compose(init -> echo(client, "x").transform(ar -> Future.succeededFuture(ar.cause())))
        .eventually(client::close);
    }).onComplete(ctx.succeeding(err -> ctx.verify(() -> {
      McpException e = assertInstanceOf(McpException.class, err);
      assertTrue(e.getMessage().endsWith("answered HTTP 500: Error processing message (-32603)"), e.getMessage());
      ctx.completeNow();
    })));
  }
}
