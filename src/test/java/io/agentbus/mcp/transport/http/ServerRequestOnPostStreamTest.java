package io.agentbus.mcp.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ServerRequest;
import io.agentbus.mcp.ServerRequestHandler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A server request sent on a {@code tools/call} POST's SSE stream names that call: the handler
 * sees the call's {@link CallOptions#getCaller() caller}, its capabilities are declared in
 * {@code initialize}, and while it answers an elicitation the call's idle timeout is suspended
 * (its hard limit is not).
 */
@ExtendWith(VertxExtension.class)
class ServerRequestOnPostStreamTest {

  /** Records the request and answers it after {@code delayMs}, then lets the fake end the call. */
  private static final class Handler implements ServerRequestHandler {
    final Vertx vertx;
    final long delayMs;
    final AtomicReference<ServerRequest> seen = new AtomicReference<>();
    final Promise<Void> answered = Promise.promise();

    Handler(Vertx vertx, long delayMs) {
      this.vertx = vertx;
      this.delayMs = delayMs;
    }

    @Override
    public JsonObject capabilities() {
      return new JsonObject().put("elicitation", new JsonObject().put("form", new JsonObject()));
    }

    @Override
    public Future<JsonObject> handle(ServerRequest request) {
      seen.set(request);
      Promise<JsonObject> p = Promise.promise();
      // a user who takes longer than the call's idle timeout to answer
      vertx.setTimer(delayMs, t -> {
        p.complete(new JsonObject().put("action", "accept").put("content", new JsonObject().put("ok", true)));
        answered.tryComplete();
      });
      return p.future();
    }
  }

  private static void elicitOnTheCallsStream(FakeMcpServer fake, Handler handler) {
    fake.onCall = (req, msg) -> {
      HttpServerResponse resp = FakeMcpServer.startSse(req.response());
      JsonObject elicit = new JsonObject().put("jsonrpc", "2.0").put("id", "e1").put("method", "elicitation/create")
        .put("params", new JsonObject().put("message", "ok?").put("requestedSchema", new JsonObject().put("type", "object")));
      resp.write("event: message\ndata: " + elicit.encode() + "\n\n");
      handler.answered.future().onSuccess(v -> resp.end("event: message\ndata: " + FakeMcpServer.toolResult(msg, "done").encode() + "\n\n"));
    };
  }

  private static McpClient client(Vertx vertx, FakeMcpServer fake, Handler handler) {
    McpServerOptions options = new McpServerOptions().setName("fake").setUrl(fake.url()).setTransport(McpServerOptions.Transport.HTTP)
      .setTimeoutMs(5_000).setConnectTimeoutMs(5_000);
    return McpClient.create(vertx, options).serverRequestHandler(handler);
  }

  @Test
  void theRequestNamesItsCallAndTheUsersTimeDoesNotCountAsIdle(Vertx vertx, VertxTestContext ctx) {
    Handler handler = new Handler(vertx, 600);
    Object caller = new Object();
    FakeMcpServer.start(vertx).compose(fake -> {
      elicitOnTheCallsStream(fake, handler);
      McpClient client = client(vertx, fake, handler);
      return client.connect()
        .compose(init -> client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(300).setMaxTotalTimeoutMs(5_000)
          .setCaller(caller)))
        .map(result -> {
          ctx.verify(() -> {
            assertEquals("done", result.getJsonArray("content").getJsonObject(0).getString("text"));
            assertSame(caller, handler.seen.get().caller());
            assertEquals("elicitation/create", handler.seen.get().method());
            JsonObject caps = fake.posts("initialize").get(0).body().getJsonObject("params").getJsonObject("capabilities");
            assertEquals(handler.capabilities(), caps);
            JsonObject answer = fake.seen.stream().map(FakeMcpServer.Seen::body)
              .filter(b -> b != null && "e1".equals(b.getValue("id"))).findFirst().orElseThrow();
            assertEquals("accept", answer.getJsonObject("result").getString("action"));
          });
          return client;
        })
        .compose(McpClient::close).eventually(fake::close);
    }).onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void theCallsHardLimitStillEndsIt(Vertx vertx, VertxTestContext ctx) {
    Handler handler = new Handler(vertx, 2_000);
    FakeMcpServer.start(vertx).compose(fake -> {
      elicitOnTheCallsStream(fake, handler);
      McpClient client = client(vertx, fake, handler);
      return client.connect()
        .compose(init -> client.callTool("echo", new JsonObject(), new CallOptions().setTimeoutMs(200).setMaxTotalTimeoutMs(500)
          .setCaller(new Object())))
        .transform(ar -> {
          ctx.verify(() -> {
            assertTrue(ar.failed() && ar.cause() instanceof McpException e && e.kind() == McpException.Kind.TIMEOUT,
              () -> String.valueOf(ar.cause()));
            assertTrue(handler.seen.get() != null);
          });
          return client.close();
        }).eventually(fake::close);
    }).onComplete(ctx.succeedingThenComplete());
  }
}
