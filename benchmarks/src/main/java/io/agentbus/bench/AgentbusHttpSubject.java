package io.agentbus.bench;

import io.agentbus.http.HttpApiOptions;
import io.agentbus.http.HttpApiVerticle;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Agentbus driven over its HTTP API: the same deployment as {@link AgentbusSubject} plus an
 * {@link HttpApiVerticle} on an ephemeral loopback port (one bearer token), and per conversation
 * {@code POST /v1/conversations}, {@code POST /v1/conversations/{id}/messages} (plain JSON
 * answer) and {@code DELETE /v1/conversations/{id}} from a Vert.x {@link HttpClient} with a
 * pool of C connections. The client runs in this process, so its CPU (about the ceiling's per
 * round trip) is counted too.
 */
final class AgentbusHttpSubject extends AgentbusSubject {

  private static final String TOKEN = "bench-token-0123456789";
  private HttpClient client;
  private int port;

  AgentbusHttpSubject(Workload workload, int mockPort, int maxInFlight, Integer httpMcpPort) {
    super(workload, mockPort, maxInFlight, false, false, httpMcpPort);
  }

  @Override
  public String name() {
    return "agentbus-http";
  }

  @Override
  public void start() throws Exception {
    super.start();
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setHost("127.0.0.1").setPort(0).addToken(TOKEN, "bench")
      .setMaxInFlightTurns(Math.max(1000, 2 * maxInFlight)));
    vertx.deployVerticle(api).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    port = api.actualPort();
    client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true),
      new PoolOptions().setHttp1MaxSize(Math.max(16, maxInFlight)).setMaxWaitQueueSize(-1));
  }

  private Future<JsonObject> call(HttpMethod method, String uri, JsonObject body, int expected) {
    RequestOptions ro = new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri)
      .putHeader("content-type", "application/json").putHeader("authorization", "Bearer " + TOKEN);
    // body() inside send's continuation (on the event loop): see ServeSubject.call
    return client.request(ro)
      .compose(req -> (body == null ? req.send() : req.send(body.toBuffer())).compose(resp -> resp.body().compose(b ->
        resp.statusCode() == expected
          ? Future.succeededFuture(b.length() == 0 ? new JsonObject() : b.toJsonObject())
          : Future.failedFuture(method + " " + uri + ": HTTP " + resp.statusCode() + " " + b))));
  }

  @Override
  public CompletionStage<?> conversation(int i) {
    return call(HttpMethod.POST, "/v1/conversations", createBody.copy(), 201)
      .compose(created -> {
        String id = created.getString("id");
        String path = "/v1/conversations/" + id;
        return call(HttpMethod.POST, path + "/messages",
          new JsonObject().put("content", "Conversation " + i + ": call the tools, then answer."), 200)
          .compose(result -> {
            String problem = checkTurn(result);
            return problem != null ? Future.failedFuture(problem) : call(HttpMethod.DELETE, path, null, 204);
          });
      })
      .toCompletionStage();
  }
}
