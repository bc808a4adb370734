package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.store.StoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Other tenants streaming turns on tenant A's conversation while A's turns run on it: they get
 * a plain 404 every time and never a single event of A's turns (the attack run saw A's
 * {@code turn_started} reach B in 1.7% of racing requests).
 */
class SseTenantRaceTest {

  private static final String ALICE = "alice-token-race";
  /** Intruding tenants: one per concurrent request, so none is refused by its own earlier request. */
  private static final int INTRUDERS = 30;

  private Vertx vertx;
  private MockModelServer mock;
  private Agentbus agentbus;
  private HttpClient http;
  private int port;

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO).setLatencyMs(5))
      .await(20, TimeUnit.SECONDS);
    ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock");
    agentbus = Agentbus.deploy(vertx, new AgentbusOptions().setConversationInstances(2)
      .setStore(new StoreOptions().setType(StoreOptions.Type.MEMORY))
      .setConversation(new ConversationOptions().setModel(model))).await(30, TimeUnit.SECONDS);
    HttpApiOptions options = new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(ALICE, "alice");
    for (int i = 0; i < INTRUDERS; i++) {
      options.addToken(intruder(i), "intruder" + i);
    }
    HttpApiVerticle api = new HttpApiVerticle(options);
    vertx.deployVerticle(api).await(20, TimeUnit.SECONDS);
    port = api.actualPort();
    http = vertx.createHttpClient();
  }

  @AfterEach
  void stop() throws Exception {
    agentbus.close().await(20, TimeUnit.SECONDS);
    mock.close().await(20, TimeUnit.SECONDS);
    vertx.close().await(20, TimeUnit.SECONDS);
  }

  private static String intruder(int i) {
    return "intruder-token-" + i;
  }

  private record Answer(int status, String contentType, String body) {
  }

  private Future<Answer> post(String path, String token, JsonObject body, boolean sse) {
    RequestOptions req = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port).setURI(path)
      .putHeader("content-type", "application/json").putHeader("authorization", "Bearer " + token);
    if (sse) {
      req.putHeader("accept", "text/event-stream");
    }
    return http.request(req).compose(r -> r.send(body.encode()))
      .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), contentType(resp), b.toString())));
  }

  private static String contentType(HttpClientResponse resp) {
    String ct = resp.getHeader("content-type");
    return ct == null ? "" : ct;
  }

  @Test
  void anotherTenantsStreamNeverSeesAnEventOfTheOwnersTurns() throws Exception {
    String id = new JsonObject(post("/v1/conversations", ALICE, new JsonObject(), false).await(20, TimeUnit.SECONDS).body())
      .getString("id");
    JsonObject message = new JsonObject().put("content", "What is the weather in Paris?");
    int rounds = 25;
    int aliceTurns = 0;
    List<Answer> intruders = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      Future<Answer> owner = post("/v1/conversations/" + id + "/messages", ALICE, message, true);
      List<Future<Answer>> wave = new ArrayList<>();
      for (int i = 0; i < INTRUDERS; i++) {
        wave.add(post("/v1/conversations/" + id + "/messages", intruder(i), message, true));
      }
      Answer a = owner.await(30, TimeUnit.SECONDS);
      if (a.status() == 200) {
        aliceTurns++;
        assertTrue(a.body().contains("event: done"), a.body());
      }
      for (Future<Answer> f : wave) {
        intruders.add(f.await(30, TimeUnit.SECONDS));
      }
    }
    assertTrue(aliceTurns >= rounds / 2, "the owner's turns ran: " + aliceTurns);
    for (Answer b : intruders) {
      assertEquals(404, b.status(), b.body());
      assertTrue(b.contentType().startsWith("application/json"), b.contentType());
      assertFalse(b.body().contains("event:") || b.body().contains("turn_started"), b.body());
    }
    Buffer history = http.request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI("/v1/conversations/" + id)
        .putHeader("authorization", "Bearer " + ALICE))
      .compose(r -> r.send().compose(HttpClientResponse::body)).await(20, TimeUnit.SECONDS);
    assertEquals(aliceTurns, new JsonObject(history).getInteger("turns"));
  }
}
