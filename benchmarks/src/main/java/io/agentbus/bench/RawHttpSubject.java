package io.agentbus.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpResponseExpectation;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The ceiling: a bare Vert.x {@link HttpClient} making the same number of model round trips
 * as a conversation (two, one after the other) to the same mock, with no tools, no parsing
 * and no runtime. Nothing that talks to this mock can go faster on this machine.
 */
final class RawHttpSubject implements Subject {

  private final int mockPort;
  private final int maxInFlight;
  private final Buffer body = new JsonObject().put("model", "claude-sonnet-4-5").put("max_tokens", 1024)
    .put("messages", new JsonArray().add(new JsonObject().put("role", "user").put("content", "hello"))).toBuffer();
  private Vertx vertx;
  private HttpClient client;
  private RequestOptions request;

  RawHttpSubject(int mockPort, int maxInFlight) {
    this.mockPort = mockPort;
    this.maxInFlight = maxInFlight;
  }

  @Override
  public String name() {
    return "ceiling";
  }

  @Override
  public void start() {
    vertx = Vertx.vertx();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
      new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)).setMaxWaitQueueSize(-1));
    request = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(mockPort).setURI("/v1/messages")
      .putHeader("content-type", "application/json").putHeader("x-api-key", "bench-key")
      .putHeader("anthropic-version", "2023-06-01");
  }

  private Future<Buffer> roundTrip() {
    return client.request(request).compose(req -> req.send(body).expecting(HttpResponseExpectation.SC_OK)
      .compose(resp -> resp.body()));
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return roundTrip().compose(b -> roundTrip()).toCompletionStage();
  }

  @Override
  public void close() throws Exception {
    if (vertx != null) {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
