package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** When the model API says "come back later" and the retries are spent, the caller is told when. */
class UpstreamBackOffTest {

  private Vertx vertx;
  private MockModelServer mock;
  private WebClient web;
  private int port;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT)).await();
    ModelOptions model = new ModelOptions().setProvider(ModelOptions.ANTHROPIC).setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock-model").setMaxRetries(0);
    Agentbus.deploy(vertx, new AgentbusOptions().setConversationInstances(1)
      .setConversation(new ConversationOptions().setModel(model))).await();
    HttpApiVerticle api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1"));
    vertx.deployVerticle(api).await();
    port = api.actualPort();
    web = WebClient.create(vertx);
  }

  @AfterEach
  void stop() {
    vertx.close().await();
  }

  private String create() {
    HttpResponse<Buffer> r = web.post(port, "127.0.0.1", "/v1/conversations").sendJsonObject(new JsonObject()).await();
    assertEquals(201, r.statusCode(), r.bodyAsString());
    return r.bodyAsJsonObject().getString("id");
  }

  @ParameterizedTest
  @CsvSource({"429;retry-after=17,429,17", "529;retry-after-ms=4200,503,5"})
  void aRateLimitPassesItsRetryAfterOn(String fault, int status, String retryAfter) {
    String id = create();
    mock.enqueueFaults(fault);
    HttpResponse<Buffer> r = web.post(port, "127.0.0.1", "/v1/conversations/" + id + "/messages")
      .timeout(TimeUnit.SECONDS.toMillis(20)).sendJsonObject(new JsonObject().put("content", "hi")).await();
    assertEquals(status, r.statusCode(), r.bodyAsString());
    assertEquals(retryAfter, r.getHeader("retry-after"));
    assertEquals(Integer.parseInt(retryAfter), r.bodyAsJsonObject().getJsonObject("error").getInteger("retryAfterSeconds"));
    assertTrue(r.bodyAsJsonObject().getJsonObject("error").getString("message").contains("model API error"), r.bodyAsString());
  }

  @ParameterizedTest
  @CsvSource({"429;retry-after=17,17"})
  void overSseTheDoneEventCarriesIt(String fault, int retryAfter) {
    String id = create();
    mock.enqueueFaults(fault);
    HttpResponse<Buffer> r = web.post(port, "127.0.0.1", "/v1/conversations/" + id + "/messages")
      .putHeader("accept", "text/event-stream").timeout(TimeUnit.SECONDS.toMillis(20))
      .sendJsonObject(new JsonObject().put("content", "hi")).await();
    String body = r.bodyAsString();
    // the turn's done event ends the stream, with the back-off the JSON answer would carry
    assertTrue(body.contains("event: done"), body);
    assertTrue(body.contains("\"retryAfterSeconds\":" + retryAfter), body);
    assertTrue(body.contains("RATE_LIMITED"), body);
  }

  @org.junit.jupiter.api.Test
  void aFailedTurnLeavesTheHistoryAsItWasAndTheNextTurnWorks() {
    String id = create();
    mock.enqueueFaults("429;retry-after=1");
    HttpResponse<Buffer> failed = send(id, new JsonObject().put("content", "first"));
    assertEquals(429, failed.statusCode(), failed.bodyAsString());
    HttpResponse<Buffer> got = web.get(port, "127.0.0.1", "/v1/conversations/" + id).send().await();
    assertEquals(0, got.bodyAsJsonObject().getJsonArray("messages").size(), got.bodyAsString());
    HttpResponse<Buffer> next = send(id, new JsonObject().put("content", "second"));
    assertEquals(200, next.statusCode(), next.bodyAsString());
    got = web.get(port, "127.0.0.1", "/v1/conversations/" + id).send().await();
    assertEquals(2, got.bodyAsJsonObject().getJsonArray("messages").size(), got.bodyAsString());
  }

  @org.junit.jupiter.api.Test
  void contentTheModelApiWouldRejectIsA400AndTheConversationStaysUsable() {
    String id = create();
    JsonObject deep = new JsonObject();
    JsonObject at = deep;
    for (int i = 0; i < 990; i++) {
      JsonObject next = new JsonObject();
      at.put("x", next);
      at = next;
    }
    HttpResponse<Buffer> bad = send(id, new JsonObject().put("content",
      new io.vertx.core.json.JsonArray().add(new JsonObject().put("type", "text").put("text", "hi").put("extra", deep))));
    assertEquals(400, bad.statusCode(), bad.bodyAsString());
    assertTrue(bad.bodyAsString().contains("unknown field 'extra'"), bad.bodyAsString());
    HttpResponse<Buffer> got = web.get(port, "127.0.0.1", "/v1/conversations/" + id).send().await();
    assertEquals(200, got.statusCode(), got.bodyAsString());
    assertEquals(200, send(id, new JsonObject().put("content", "fine")).statusCode());
  }

  private HttpResponse<Buffer> send(String id, JsonObject body) {
    return web.post(port, "127.0.0.1", "/v1/conversations/" + id + "/messages")
      .timeout(TimeUnit.SECONDS.toMillis(20)).sendJsonObject(body).await();
  }
}
