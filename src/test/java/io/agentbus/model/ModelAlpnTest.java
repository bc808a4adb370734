package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agentbus.model.impl.ModelHttp;
import io.agentbus.sse.SseEvent;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SelfSignedCertificate;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * HTTP/2 over TLS: ALPN offers h2 and http/1.1, and the client follows the server's pick. The
 * server has a self-signed certificate that only these tests trust.
 */
@ExtendWith(VertxExtension.class)
class ModelAlpnTest {

  private static final SelfSignedCertificate CERT = SelfSignedCertificate.create("localhost");

  private final List<HttpVersion> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger connections = new AtomicInteger();

  /** A TLS server answering a JSON call and a three-event stream, recording the protocol of each. */
  private Future<HttpServer> server(Vertx vertx, boolean alpn) {
    return vertx.createHttpServer(new HttpServerOptions().setSsl(true).setUseAlpn(alpn).setHost("localhost")
            .setKeyCertOptions(CERT.keyCertOptions()))
        .connectionHandler(c -> connections.incrementAndGet())
        .requestHandler(req -> req.body().onSuccess(body -> {
          seen.add(req.version());
          if ("text/event-stream".equals(req.getHeader("accept"))) {
            req.response().putHeader("content-type", "text/event-stream").setChunked(true);
            for (int i = 0; i < 3; i++) {
              req.response().write("event: e\ndata: {\"i\":" + i + "}\n\n");
            }
            req.response().end();
          } else {
            req.response().putHeader("content-type", "application/json").end(new JsonObject().put("bytes", body.length()).toBuffer());
          }
        }))
        .listen(0);
  }

  private void check(Vertx vertx, VertxTestContext ctx, boolean alpn, ModelOptions options, HttpVersion expected) {
    List<SseEvent> events = new CopyOnWriteArrayList<>();
    server(vertx, alpn).compose(server -> {
      String url = "https://localhost:" + server.actualPort() + "/v1/messages";
      ModelHttp http = new ModelHttp(vertx, options.setBaseUrl("https://localhost:" + server.actualPort()),
          CERT.trustOptions());
      MultiMap headers = MultiMap.caseInsensitiveMultiMap().set("content-type", "application/json");
      return http.postSse(url, headers, new JsonObject().put("stream", true), rid -> { }, events::add)
          .compose(v -> http.postJson(url, headers, new JsonObject().put("a", "b")))
          .eventually(http::close);
    }).onComplete(ctx.succeeding(json -> ctx.verify(() -> {
      assertEquals(9, json.body().getInteger("bytes"));
      assertEquals(3, events.size());
      assertEquals(List.of(expected, expected), seen);
      if (expected == HttpVersion.HTTP_2) {
        assertEquals(1, connections.get(), "both calls on one connection");
      }
      ctx.completeNow();
    })));
  }

  @Test
  void alpnPicksH2WhenTheServerOffersIt(Vertx vertx, VertxTestContext ctx) {
    check(vertx, ctx, true, new ModelOptions(), HttpVersion.HTTP_2);
  }

  @Test
  void alpnFallsBackToHttp11WhenTheServerOnlySpeaksIt(Vertx vertx, VertxTestContext ctx) {
    check(vertx, ctx, false, new ModelOptions(), HttpVersion.HTTP_1_1);
  }

  @Test
  void http2FalseStaysOnHttp11OverTls(Vertx vertx, VertxTestContext ctx) {
    check(vertx, ctx, true, new ModelOptions().setHttp2(false), HttpVersion.HTTP_1_1);
  }
}
