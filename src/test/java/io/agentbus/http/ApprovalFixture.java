package io.agentbus.http;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.ToolApproval;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.NotesToolServer;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.agentbus.sse.SseEvent;
import io.agentbus.sse.SseParser;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The stack of the approval tests: the mock model (script mode) over real HTTP, the recording
 * {@link NotesToolServer} over stdio with {@code approval: "destructive"}, Agentbus and the HTTP
 * API with tokens for tenants alice and bob.
 */
final class ApprovalFixture {

  static final String ALICE = "alice-token-approvals";
  static final String BOB = "bob-token-approvals";
  static final String DELETE = "mcp__notes__delete_note";
  static final String READ = "mcp__notes__read_note";

  final Vertx vertx;
  final MockModelServer mock;
  final Agentbus agentbus;
  final HttpApiVerticle api;
  final WebClient web;
  final HttpClient http;
  private final String deployment;

  private ApprovalFixture(Vertx vertx, MockModelServer mock, Agentbus agentbus, HttpApiVerticle api, String deployment) {
    this.vertx = vertx;
    this.mock = mock;
    this.agentbus = agentbus;
    this.api = api;
    this.deployment = deployment;
    this.web = WebClient.create(vertx);
    this.http = vertx.createHttpClient();
  }

  static JsonObject toolUse(String name, String note) {
    return new JsonObject().put("type", "tool_use").put("name", name).put("input", new JsonObject().put("note", note));
  }

  private static JsonObject script(String match, JsonArray firstReply) {
    return new JsonObject().put("match", match).put("replies", new JsonArray()
      .add(new JsonObject().put("content", firstReply))
      .add(new JsonObject().put("text", match + " finished")));
  }

  /** Each conversation's first user message picks its script by the word it contains. */
  static JsonObject scripts() {
    return new JsonObject().put("conversations", new JsonArray()
      .add(script("APPROVE", new JsonArray().add(toolUse(DELETE, "approve-me"))))
      .add(script("DENY", new JsonArray().add(toolUse(DELETE, "deny-me"))))
      .add(script("TIMEOUT", new JsonArray().add(toolUse(DELETE, "timeout-me"))))
      .add(script("TENANT", new JsonArray().add(toolUse(DELETE, "tenant-me"))))
      .add(script("STREAM", new JsonArray().add(toolUse(DELETE, "stream-me"))))
      .add(script("BUS", new JsonArray().add(toolUse(DELETE, "bus-me"))))
      .add(script("WATCH", new JsonArray().add(toolUse(DELETE, "watch-me"))))
      .add(script("PARALLEL", new JsonArray().add(toolUse(DELETE, "parallel-delete")).add(toolUse(READ, "parallel-read"))))
      .add(new JsonObject().put("replies", new JsonArray().add(new JsonObject().put("text", "plain answer")))));
  }

  static Future<ApprovalFixture> start(Vertx vertx, long approvalTimeoutMs) {
    return MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setScript(scripts()))
      .compose(mock -> {
        ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
          .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model");
        McpServerOptions notes = InteropServers.javaMain("notes", NotesToolServer.class).setApproval(ToolApproval.DESTRUCTIVE);
        return Agentbus.deploy(vertx, new AgentbusOptions()
            .addMcpServer(notes)
            .setConversationInstances(2)
            .setConversation(new ConversationOptions().setModel(model).setMaxIterations(5)
              .setApprovalTimeoutMs(approvalTimeoutMs)))
          .compose(agentbus -> {
            HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1")
              .addToken(ALICE, "alice").addToken(BOB, "bob").setServers(List.of("notes")));
            return vertx.deployVerticle(api).map(id -> new ApprovalFixture(vertx, mock, agentbus, api, id));
          });
      });
  }

  Future<Void> close() {
    return vertx.undeploy(deployment).eventually(() -> agentbus.close()).eventually(() -> mock.close());
  }

  HttpRequest<Buffer> request(HttpMethod method, String path, String token) {
    return web.request(method, api.actualPort(), "127.0.0.1", path).bearerTokenAuthentication(token);
  }

  Future<String> create(String token) {
    return request(HttpMethod.POST, "/v1/conversations", token).sendJsonObject(new JsonObject())
      .map(r -> r.bodyAsJsonObject().getString("id"));
  }

  Future<HttpResponse<Buffer>> send(String id, String token, String content) {
    return request(HttpMethod.POST, "/v1/conversations/" + id + "/messages", token)
      .sendJsonObject(new JsonObject().put("content", content));
  }

  Future<HttpResponse<Buffer>> answer(String id, String token, String toolUseId, JsonObject body) {
    return request(HttpMethod.POST, "/v1/conversations/" + id + "/approvals/" + toolUseId, token).sendJsonObject(body);
  }

  Future<HttpResponse<Buffer>> approvals(String id, String token) {
    return request(HttpMethod.GET, "/v1/conversations/" + id + "/approvals", token).send();
  }

  /**
   * Subscribes to the conversation's events; completes once subscribed, with the future of the
   * first matching event.
   */
  Future<Future<JsonObject>> awaitEvent(String conversationId, Predicate<JsonObject> match) {
    Promise<JsonObject> seen = Promise.promise();
    MessageConsumer<JsonObject> consumer = vertx.eventBus().localConsumer(Addresses.conversationEvents(conversationId));
    // stays subscribed: unregistering while the turn's later events are in flight logs warnings
    consumer.handler(m -> {
      if (match.test(m.body())) {
        seen.tryComplete(m.body());
      }
    });
    return consumer.completion().map(v -> seen.future());
  }

  static Predicate<JsonObject> type(String type) {
    return e -> type.equals(e.getString("type"));
  }

  /**
   * POSTs a message with {@code Accept: text/event-stream} and collects the SSE events until
   * the response ends; {@code onEvent} sees each as it arrives.
   */
  Future<List<SseEvent>> stream(String id, String token, String content, Consumer<SseEvent> onEvent) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(api.actualPort())
      .setURI("/v1/conversations/" + id + "/messages")
      .putHeader("Authorization", "Bearer " + token).putHeader("Accept", "text/event-stream")
      .putHeader("Content-Type", "application/json");
    return http.request(options).compose(req -> {
      List<SseEvent> events = new ArrayList<>();
      Promise<List<SseEvent>> done = Promise.promise();
      req.response().onFailure(done::tryFail).onSuccess(resp -> {
        resp.handler(SseParser.create().handler(ev -> {
          events.add(ev);
          onEvent.accept(ev);
        }));
        resp.endHandler(v -> done.tryComplete(events));
        resp.exceptionHandler(done::tryFail);
      });
      req.end(new JsonObject().put("content", content).toBuffer()).onFailure(done::tryFail);
      return done.future();
    });
  }

  /**
   * Opens {@code GET /v1/conversations/{id}/events} and hands each SSE event to {@code onEvent},
   * which returns {@code true} to close the stream; completes with the events read (or fails
   * with the status of a response that is not a stream).
   */
  Future<List<SseEvent>> watch(String id, String token, Predicate<SseEvent> onEvent) {
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(api.actualPort())
      .setURI("/v1/conversations/" + id + "/events").putHeader("Authorization", "Bearer " + token)
      .putHeader("Accept", "text/event-stream");
    return http.request(options).compose(req -> {
      List<SseEvent> events = new ArrayList<>();
      Promise<List<SseEvent>> done = Promise.promise();
      req.response().onFailure(done::tryFail).onSuccess(resp -> {
        if (resp.statusCode() != 200) {
          resp.body().onComplete(b -> done.tryFail(resp.statusCode() + " " + (b.succeeded() ? b.result() : "")));
          return;
        }
        resp.handler(SseParser.create().handler(ev -> {
          events.add(ev);
          if (onEvent.test(ev) && done.tryComplete(events)) {
            resp.request().connection().close();
          }
        }));
        resp.endHandler(v -> done.tryComplete(events));
      });
      req.end().onFailure(done::tryFail);
      return done.future();
    });
  }

  /** @return every call the notes server received so far (name and arguments), asked over the bus */
  Future<JsonArray> serverCalls() {
    DeliveryOptions delivery = new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL);
    return vertx.eventBus().<JsonObject>request(Addresses.mcp("notes"),
        new JsonObject().put("name", "calls").put("arguments", new JsonObject()), delivery)
      .map(reply -> reply.body().getJsonObject("structuredContent").getJsonArray("calls"));
  }

  /** @return whether the server received a call with that note */
  static boolean called(JsonArray calls, String note) {
    return calls.stream().anyMatch(c -> note.equals(((JsonObject) c).getJsonObject("arguments").getString("note")));
  }
}
