package io.agentbus.http;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.Addresses;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The stack the HTTP API tests run against: the mock model (script mode) over real HTTP, the
 * real server-everything over stdio, Agentbus, and two API instances on ephemeral ports: the
 * main one (tokens for tenants alice and bob, 64 KiB bodies) and a "limited" one (one turn at
 * a time, and a /health that also lists a server that does not exist).
 */
final class ApiFixture {

  static final String ALICE = "alice-token-7f3a9c";
  static final String BOB = "bob-token-51d2e8";
  static final String ECHO = "mcp__everything__echo";
  static final String SUM = "mcp__everything__get-sum";
  static final String SLOW = "mcp__everything__trigger-long-running-operation";
  static final long MAX_BODY = 64 * 1024;

  final Vertx vertx;
  final MockModelServer mock;
  final Agentbus agentbus;
  final HttpApiVerticle api;
  final HttpApiVerticle limited;
  final WebClient web;
  final HttpClient http;
  private final List<String> deployments;

  private ApiFixture(Vertx vertx, MockModelServer mock, Agentbus agentbus, HttpApiVerticle api, HttpApiVerticle limited,
      List<String> deployments) {
    this.vertx = vertx;
    this.mock = mock;
    this.agentbus = agentbus;
    this.api = api;
    this.limited = limited;
    this.deployments = deployments;
    this.web = WebClient.create(vertx);
    this.http = vertx.createHttpClient();
  }

  static JsonObject toolUse(String name, JsonObject input) {
    return new JsonObject().put("type", "tool_use").put("name", name).put("input", input);
  }

  static JsonObject text(String text) {
    return new JsonObject().put("type", "text").put("text", text);
  }

  static JsonObject script(String match, JsonObject... replies) {
    return new JsonObject().put("match", match).put("replies", new JsonArray(List.of((Object[]) replies)));
  }

  static JsonObject scripts() {
    JsonObject twoTools = new JsonObject().put("content", new JsonArray().add(text("Let me check both."))
      .add(toolUse(ECHO, new JsonObject().put("message", "hello")))
      .add(toolUse(SUM, new JsonObject().put("a", 2).put("b", 3))));
    JsonObject slow = new JsonObject().put("content", new JsonArray()
      .add(toolUse(SLOW, new JsonObject().put("duration", 1).put("steps", 1))));
    return new JsonObject().put("conversations", new JsonArray()
      .add(script("PARALLEL", twoTools, new JsonObject().put("text", "Echo said hello and 2+3=5.")))
      .add(script("SLOW", slow, new JsonObject().put("text", "slow done")))
      .add(script(null, new JsonObject().put("text", "plain answer"))));
  }

  static Future<ApiFixture> start(Vertx vertx) {
    List<String> deployments = new ArrayList<>();
    return MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(scripts()))
      .compose(mock -> {
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model");
        return Agentbus.deploy(vertx, new AgentbusOptions()
            .addMcpServer(InteropServers.everythingStdio("everything"))
            .setConversationInstances(2)
            .setConversation(new ConversationOptions().setModel(model).setMaxIterations(5)))
          .compose(agentbus -> {
            HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1")
              .addToken(ALICE, "alice").addToken(BOB, "bob").setMaxBodyBytes(MAX_BODY).setServers(List.of("everything")));
            HttpApiVerticle limited = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1")
              .addToken(ALICE, "alice").setMaxInFlightTurns(1).setRetryAfterSeconds(3)
              .setServers(List.of("everything", "ghost")));
            return vertx.deployVerticle(api).map(deployments::add)
              .compose(v -> vertx.deployVerticle(limited)).map(deployments::add)
              .map(v -> new ApiFixture(vertx, mock, agentbus, api, limited, deployments));
          });
      });
  }

  Future<Void> close() {
    Future<Void> chain = Future.succeededFuture();
    for (String id : deployments) {
      chain = chain.eventually(() -> vertx.undeploy(id));
    }
    return chain.eventually(() -> agentbus.close()).eventually(() -> mock.close());
  }

  HttpRequest<Buffer> request(HttpMethod method, HttpApiVerticle to, String path, String token) {
    HttpRequest<Buffer> req = web.request(method, to.actualPort(), "127.0.0.1", path);
    if (token != null) {
      req.bearerTokenAuthentication(token);
    }
    return req;
  }

  HttpRequest<Buffer> request(HttpMethod method, String path, String token) {
    return request(method, api, path, token);
  }

  /** Creates a conversation for the token's tenant. */
  Future<String> create(String token) {
    return request(HttpMethod.POST, "/v1/conversations", token).sendJsonObject(new JsonObject())
      .map(r -> r.bodyAsJsonObject().getString("id"));
  }

  Future<HttpResponse<Buffer>> send(HttpApiVerticle to, String id, String token, String content) {
    return request(HttpMethod.POST, to, "/v1/conversations/" + id + "/messages", token)
      .sendJsonObject(new JsonObject().put("content", content));
  }

  /**
   * Subscribes to the conversation's events; completes once subscribed, with the future of the
   * first matching event.
   */
  Future<Future<JsonObject>> awaitEvent(String conversationId, Predicate<JsonObject> match) {
    Promise<JsonObject> seen = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>localConsumer(Addresses.conversationEvents(conversationId));
    consumer.handler(m -> {
      // stays subscribed: unregistering while this turn's later events are in flight logs warnings
      if (match.test(m.body())) {
        seen.tryComplete(m.body());
      }
    });
    return consumer.completion().map(v -> seen.future());
  }

  /** The raw response and its parsed SSE events of a streamed turn. */
  record Streamed(HttpClientResponse response, List<SseEvent> events) {
  }

  /**
   * POSTs a message with {@code Accept: text/event-stream} and collects the SSE events until
   * the response ends; {@code onEvent} may close the connection early (the future then
   * completes with what was read).
   */
  Future<Streamed> stream(String id, String token, String content, java.util.function.BiConsumer<SseEvent, HttpClientResponse> onEvent) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(api.actualPort())
      .setURI("/v1/conversations/" + id + "/messages")
      .putHeader("Authorization", "Bearer " + token).putHeader("Accept", "text/event-stream")
      .putHeader("Content-Type", "application/json");
    // The response listener is attached before the request is sent, so it runs as soon as the
    // head arrives, before any body chunk (a short error body may otherwise end first).
    return http.request(options).compose(req -> {
      List<SseEvent> events = new ArrayList<>();
      Promise<Streamed> done = Promise.promise();
      req.response().onFailure(done::tryFail).onSuccess(resp -> {
        SseParser parser = SseParser.create().handler(ev -> {
          events.add(ev);
          if (onEvent != null) {
            onEvent.accept(ev, resp);
          }
        });
        resp.handler(parser);
        resp.endHandler(v -> done.tryComplete(new Streamed(resp, events)));
        resp.exceptionHandler(err -> done.tryComplete(new Streamed(resp, events)));
        resp.request().connection().closeHandler(v -> done.tryComplete(new Streamed(resp, events)));
      });
      req.end(new JsonObject().put("content", content).toBuffer()).onFailure(done::tryFail);
      return done.future();
    });
  }
}
