package io.agentbus.metrics;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpException;
import io.agentbus.model.ModelException;
import io.agentbus.model.ModelResponse;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters' names, labels and label values, without a running stack. */
class AgentbusMetricsTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  @Test
  void oneRegistryPerVertxAndEveryMeterInTheScrape() {
    AgentbusMetrics m = AgentbusMetrics.get(vertx);
    assertSame(m, AgentbusMetrics.get(vertx));
    long start = System.nanoTime();
    m.toolCall("srv", "echo", start, Future.succeededFuture(new JsonObject()));
    m.toolCall("srv", "echo", start, Future.succeededFuture(new JsonObject().put("isError", true)));
    m.toolCall("srv", "echo", start, Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 504, "slow")));
    m.toolCall("srv", "echo", start, Future.failedFuture(new McpException(McpException.Kind.QUEUE_FULL, "full")));
    m.modelCall("anthropic", start, Future.failedFuture(new ModelException(ModelException.Kind.RATE_LIMITED, "429", false, null)));
    Promise<ModelResponse> pending = Promise.promise();
    m.modelCall("openai", start, pending.future());
    m.turn(Promise.<JsonObject>promise().future());
    m.turn(Future.succeededFuture(new JsonObject().put("status", "max_iterations")));
    m.conversationOpened();
    m.conversationOpened();
    m.conversationsClosed(1);
    m.mcpRestart("srv");
    m.rejected("overloaded");
    String text = m.scrape();
    for (String expected : new String[] {
      "agentbus_tool_calls_seconds_count{outcome=\"ok\",server=\"srv\",tool=\"echo\"} 1",
      "agentbus_tool_calls_seconds_count{outcome=\"error\",server=\"srv\",tool=\"echo\"} 1",
      "agentbus_tool_calls_seconds_count{outcome=\"timeout\",server=\"srv\",tool=\"echo\"} 1",
      "agentbus_tool_calls_seconds_count{outcome=\"queue_full\",server=\"srv\",tool=\"echo\"} 1",
      "agentbus_tool_calls_seconds_bucket{outcome=\"ok\",server=\"srv\",tool=\"echo\",le=\"0.005\"}",
      "agentbus_model_calls_seconds_count{outcome=\"error\",provider=\"anthropic\",status=\"rate_limited\"} 1",
      "agentbus_turns_seconds_count{status=\"max_iterations\"} 1",
      "agentbus_turns_running 1",
      "agentbus_conversations_active 1",
      "agentbus_mcp_server_restarts_total{server=\"srv\"} 1",
      "agentbus_http_rejected_total{reason=\"overloaded\"} 1"}) {
      assertTrue(text.contains(expected), () -> expected + " missing from\n" + text);
    }
    assertTrue(!text.contains("provider=\"openai\""), "a pending model call is not recorded yet");
  }
}
