package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SseFrames} over a real HTTP server and client: frames sent in one event-loop pass
 * leave as one chunk, frames of later passes as later chunks, and ending sends what is still
 * pending before the end.
 */
class SseFramesTest {

  private Vertx vertx;
  private HttpServer server;
  private HttpClient client;
  private volatile Handler<HttpServerResponse> onRequest;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = vertx.createHttpServer().requestHandler(req -> {
      HttpServerResponse r = req.response().setChunked(true).putHeader("content-type", "text/event-stream");
      onRequest.handle(r);
    }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    client = vertx.createHttpClient();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  /** @return the chunks of the response body as the client received them, once it ended */
  private List<String> chunks() throws Exception {
    List<String> chunks = new CopyOnWriteArrayList<>();
    Promise<Void> ended = Promise.promise();
    get(resp -> {
      resp.handler(b -> chunks.add(b.toString()));
      resp.endHandler(v -> ended.tryComplete());
      resp.exceptionHandler(ended::tryFail);
    }, ended);
    ended.future().await(10, TimeUnit.SECONDS);
    return chunks;
  }

  /** GETs the server's one route, hands the response to {@code onResponse}; a failure fails {@code failed}. */
  private void get(Handler<HttpClientResponse> onResponse, Promise<Void> failed) {
    client.request(HttpMethod.GET, server.actualPort(), "127.0.0.1", "/")
      .compose(req -> req.send())
      .onSuccess(onResponse)
      .onFailure(failed::tryFail);
  }

  @Test
  void framesOfOnePassLeaveTogetherAndLaterPassesLeaveLater() throws Exception {
    onRequest = r -> {
      SseFrames frames = new SseFrames(vertx.getOrCreateContext(), r);
      frames.send("event: a\ndata: 1\n\n");
      frames.send("event: b\ndata: 2\n\n");
      frames.send("event: c\ndata: 3\n\n");
      // a later pass, well after the first one's flush
      vertx.setTimer(100, t -> {
        frames.send("event: d\ndata: 4\n\n");
        vertx.setTimer(100, t2 -> frames.end());
      });
    };
    List<String> chunks = chunks();
    assertEquals(List.of("event: a\ndata: 1\n\nevent: b\ndata: 2\n\nevent: c\ndata: 3\n\n", "event: d\ndata: 4\n\n"), chunks);
  }

  @Test
  void endingSendsThePendingFramesFirstAndNothingAfter() throws Exception {
    onRequest = r -> {
      SseFrames frames = new SseFrames(vertx.getOrCreateContext(), r);
      frames.send("event: a\ndata: 1\n\n");
      frames.send("event: done\ndata: {}\n\n");
      frames.end();
      frames.send("event: late\ndata: x\n\n");
      frames.end();
    };
    String body = String.join("", chunks());
    assertEquals("event: a\ndata: 1\n\nevent: done\ndata: {}\n\n", body);
  }

  @Test
  void framesForAClosedResponseAreDropped() throws Exception {
    Promise<Void> closed = Promise.promise();
    Promise<Boolean> sentAfterClose = Promise.promise();
    onRequest = r -> {
      SseFrames frames = new SseFrames(vertx.getOrCreateContext(), r);
      r.closeHandler(v -> {
        closed.tryComplete();
        frames.send("event: late\ndata: x\n\n");
        frames.end();
        sentAfterClose.complete(r.closed());
      });
      frames.send("event: a\ndata: 1\n\n");
    };
    Buffer first = Buffer.buffer();
    Promise<Void> gotFirst = Promise.promise();
    get(resp -> resp.handler(b -> {
      first.appendBuffer(b);
      gotFirst.tryComplete();
      resp.request().connection().close();
    }), gotFirst);
    gotFirst.future().await(10, TimeUnit.SECONDS);
    closed.future().await(10, TimeUnit.SECONDS);
    assertTrue(sentAfterClose.future().await(10, TimeUnit.SECONDS));
    assertEquals("event: a\ndata: 1\n\n", first.toString());
  }
}
