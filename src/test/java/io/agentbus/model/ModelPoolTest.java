package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.config.AgentConfig;
import io.agentbus.limits.MemoryBudget;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.options.ConfigException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The model client's pool never fails a turn by default: requests beyond it wait for a connection. */
@ExtendWith(VertxExtension.class)
class ModelPoolTest {

  @Test
  void theWaitQueueIsUnboundedByDefault() {
    assertEquals(-1, ModelOptions.DEFAULT_MAX_WAIT_QUEUE_SIZE);
    assertEquals(-1, new ModelOptions().getMaxWaitQueueSize());
    assertEquals(-1, new ModelOptions(new JsonObject()).getMaxWaitQueueSize());
    assertEquals(-1, AgentConfig.fromJson(new JsonObject(), Map.of()).conversation().getModel().getMaxWaitQueueSize());
    assertEquals(100, AgentConfig.fromJson(new JsonObject("{\"model\": {\"maxWaitQueueSize\": 100}}"), Map.of())
        .conversation().getModel().getMaxWaitQueueSize());
    ConfigException e = assertThrows(ConfigException.class,
        () -> AgentConfig.fromJson(new JsonObject("{\"model\": {\"maxWaitQueueSize\": -2}}"), Map.of()));
    assertEquals("agent config: field 'model.maxWaitQueueSize' must be -1 (unbounded) or an integer from 0 to 2147483647 (was -2)", e.getMessage());
  }

  @Test
  void thePoolIsTheTurnBudgetSplitOverTheClientsWithinAQuarterOfTheFileDescriptors() {
    assertEquals(2_500, ModelOptions.maxConnectionsFor(98_304, 20_000, 2));
    assertEquals(49_152, ModelOptions.maxConnectionsFor(98_304, -1, 2));
    assertEquals(12_288, ModelOptions.maxConnectionsFor(98_304, 1_048_576, 8));
    assertEquals(ModelOptions.MIN_DEFAULT_MAX_CONNECTIONS, ModelOptions.maxConnectionsFor(1_000, 1_024, 8));
    assertEquals(ModelOptions.DEFAULT_MAX_CONNECTIONS, new ModelOptions().getMaxConnections());
    assertTrue(ModelOptions.DEFAULT_MAX_CONNECTIONS >= ModelOptions.MIN_DEFAULT_MAX_CONNECTIONS);
    assertTrue(ModelOptions.DEFAULT_MAX_CONNECTIONS <= Math.max(ModelOptions.MIN_DEFAULT_MAX_CONNECTIONS, MemoryBudget.turns()));
  }

  @Test
  void theHttp2PoolCarriesTheClientsShareOfTheTurnBudgetAtAHundredStreamsAConnection() {
    assertEquals(492, ModelOptions.http2MaxConnectionsFor(98_304, 2));
    assertEquals(100, ModelOptions.http2MaxConnectionsFor(10_000, 1));
    assertEquals(5, ModelOptions.http2MaxConnectionsFor(1_000, 2));
    assertEquals(1, ModelOptions.http2MaxConnectionsFor(50, 1));
    assertEquals(ModelOptions.DEFAULT_HTTP2_MAX_CONNECTIONS, new ModelOptions().getHttp2MaxConnections());
    assertEquals(ModelOptions.http2MaxConnectionsFor(MemoryBudget.turns(), Runtime.getRuntime().availableProcessors()),
        ModelOptions.DEFAULT_HTTP2_MAX_CONNECTIONS);
    assertEquals(7, new ModelOptions(new JsonObject().put("http2MaxConnections", 7)).getHttp2MaxConnections());
    assertEquals(7, new ModelOptions(new ModelOptions().setHttp2MaxConnections(7).toJson()).getHttp2MaxConnections());
    assertThrows(IllegalArgumentException.class, () -> new ModelOptions().setHttp2MaxConnections(0));
  }

  @Test
  void farMoreRequestsThanConnectionsAllSucceed(Vertx vertx, VertxTestContext ctx) {
    // more than the old bound of 4096 waiting requests, through two HTTP/1.1 connections
    int requests = 4_500;
    MockModelOptions mock = new MockModelOptions().setMode(MockModelOptions.MODE_DEMO).setApiKey(MockFixture.KEY);
    MockFixture.start(vertx, mock, MockFixture.options(ModelOptions.ANTHROPIC).setMaxConnections(2).setHttp2(false)).compose(f -> {
      List<Future<ModelResponse>> replies = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        replies.add(f.client.send(new ModelRequest().addMessage("user", "hello " + i)));
      }
      return Future.join(replies).map(all -> replies);
    }).onComplete(ctx.succeeding(replies -> ctx.verify(() -> {
      assertEquals(requests, replies.size());
      assertTrue(replies.stream().allMatch(r -> r.succeeded() && r.result().stopReason() != null));
      ctx.completeNow();
    })));
  }
}
