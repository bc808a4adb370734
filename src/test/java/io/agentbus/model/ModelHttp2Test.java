package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTP/2 to the model API by default, over real sockets against the mock: h2c where the server
 * accepts it, HTTP/1.1 where it does not, and thousands of calls in flight on a few connections.
 * (TLS and ALPN: {@link ModelAlpnTest}.)
 */
@ExtendWith(VertxExtension.class)
class ModelHttp2Test {

  private static MockModelOptions demo() {
    return new MockModelOptions().setMode(MockModelOptions.MODE_DEMO).setApiKey(MockFixture.KEY);
  }

  private static ModelRequest hello(int i) {
    return new ModelRequest().addMessage("user", "hello " + i);
  }

  /** A streamed and a plain call with each provider. */
  private static Future<ModelResponse> bothKinds(MockFixture f) {
    return f.client.stream(hello(1), e -> { }).compose(r -> f.client.send(hello(2)));
  }

  @Test
  void http2IsTheDefault() {
    assertTrue(ModelOptions.DEFAULT_HTTP2);
    assertTrue(new ModelOptions().isHttp2());
    assertTrue(ModelOptions.DEFAULT_HTTP2_MAX_CONNECTIONS >= 1);
  }

  @Test
  void streamedAndPlainCallsSpeakH2cWithTheMock(Vertx vertx, VertxTestContext ctx) {
    List<MockFixture> fx = new ArrayList<>();
    MockFixture.start(vertx, demo(), MockFixture.options(ModelOptions.ANTHROPIC))
        .compose(f -> {
          fx.add(f);
          return bothKinds(f);
        })
        .compose(r -> MockFixture.start(vertx, demo(), MockFixture.options(ModelOptions.OPENAI)))
        .compose(f -> {
          fx.add(f);
          return bothKinds(f);
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          for (MockFixture f : fx) {
            assertEquals(1, f.mock.optionsCount(), "one h2c upgrade probe");
            assertEquals(2, f.mock.requestCount());
            assertEquals(2, f.mock.http2RequestCount(), "the server saw HTTP/2 for the streamed and the plain call");
            // the upgrade probe's connection, then one h2c connection for both calls
            assertEquals(2, f.mock.connectionCount());
          }
          ctx.completeNow();
        })));
  }

  @Test
  void fallsBackToHttp11WhenTheServerDoesNotSpeakH2c(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, demo().setH2c(false), MockFixture.options(ModelOptions.ANTHROPIC))
        .compose(f -> {
          fx[0] = f;
          return bothKinds(f).compose(r -> bothKinds(f));
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          MockModelServer mock = fx[0].mock;
          assertEquals(4, mock.requestCount());
          assertEquals(0, mock.http2RequestCount());
          assertEquals(1, mock.optionsCount(), "the probe ran once");
          // the probe's own connection, then kept-alive HTTP/1.1 ones
          assertTrue(mock.connectionCount() <= 3, mock.connectionCount() + " connections");
          ctx.completeNow();
        })));
  }

  @Test
  void http2FalseIsHttp11WithoutAProbe(Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, demo(), MockFixture.options(ModelOptions.OPENAI).setHttp2(false))
        .compose(f -> {
          fx[0] = f;
          return bothKinds(f);
        })
        .onComplete(ctx.succeeding(r -> ctx.verify(() -> {
          assertEquals(2, fx[0].mock.requestCount());
          assertEquals(0, fx[0].mock.http2RequestCount());
          assertEquals(0, fx[0].mock.optionsCount());
          ctx.completeNow();
        })));
  }

  @Test
  void twoThousandStreamsInFlightShareOneConnection(Vertx vertx, VertxTestContext ctx) {
    // the mock allows 10,000 streams per connection: calls that arrive while the first connection
    // opens wait for it rather than each opening one
    manyStreams(vertx, ctx, demo().setLatencyMs(1_000), MockFixture.options(ModelOptions.ANTHROPIC), 2_000, 2, 2);
  }

  @Test
  void theHttp2PoolOpensAsManyConnectionsAsTheStreamsNeed(Vertx vertx, VertxTestContext ctx) {
    // 100 streams per connection, as Vert.x servers announce by default: 2,000 calls need 20
    // connections, more than the old fixed pool of 16; with a pool of 24 none waits for a stream
    // each call lasts 3 s, so that on a loaded machine the last call still starts before the first ends
    manyStreams(vertx, ctx, demo().setLatencyMs(3_000).setMaxConcurrentStreams(100),
        MockFixture.options(ModelOptions.ANTHROPIC).setHttp2MaxConnections(24), 2_000, 21, 25);
  }

  /** {@code calls} streamed calls at once; the HTTP/1.1 pool is kept small to show it plays no part. */
  private static void manyStreams(Vertx vertx, VertxTestContext ctx, MockModelOptions mock, ModelOptions client,
      int calls, int minConnections, int maxConnections) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, mock, client.setMaxConnections(64)).compose(f -> {
      fx[0] = f;
      List<Future<ModelResponse>> replies = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        replies.add(f.client.stream(hello(i), e -> { }));
      }
      return Future.join(replies).map(all -> replies);
    }).onComplete(ctx.succeeding(replies -> ctx.verify(() -> {
      MockModelServer server = fx[0].mock;
      assertTrue(replies.stream().allMatch(r -> r.succeeded() && r.result().stopReason() != null));
      assertEquals(calls, server.requestCount());
      assertEquals(calls, server.http2RequestCount());
      assertEquals(calls, server.peakInFlight(), "every call was in flight at once: none waited for the pool");
      assertEquals(1, server.optionsCount());
      int connections = server.connectionCount();
      assertTrue(connections >= minConnections && connections <= maxConnections,
          connections + " connections, expected " + minConnections + ".." + maxConnections);
      ctx.completeNow();
    })));
  }
}
