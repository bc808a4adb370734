package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import io.agentbus.mock.MockModelOptions;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A stream that fails before any content reached the caller is retried; one that fails after is not. */
@ExtendWith(VertxExtension.class)
class ModelStreamRetryTest {

  private static MockModelOptions script(String fault) {
    return new MockModelOptions().setMode(MockModelOptions.MODE_SCRIPT).setApiKey(MockFixture.KEY)
      .setScriptReplies(MockFixture.toolScript()).setFaults(new JsonArray().add(fault));
  }

  @ParameterizedTest
  @CsvSource({"anthropic,broken-stream;after=1", "anthropic,stream-error;after=1", "anthropic,broken-stream;after=0",
    "openai,broken-stream;after=1", "openai,stream-error;after=1"})
  void aStreamFailingBeforeContentIsRetriedAndSeenOnce(String provider, String fault, Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    List<ModelStreamEvent> events = new ArrayList<>();
    MockFixture.start(vertx, script(fault), MockFixture.options(provider).setMaxRetries(2)).compose(f -> {
      fx[0] = f;
      return f.client.stream(MockFixture.weatherRequest(), events::add);
    }).onComplete(ctx.succeeding(r -> ctx.verify(() -> {
      assertEquals(2, fx[0].mock.requestCount());
      assertEquals("tool_use", r.stopReason());
      assertEquals(1, events.stream().filter(e -> e instanceof ModelStreamEvent.MessageStarted).count(), events::toString);
      assertEquals(2, events.stream().filter(e -> e instanceof ModelStreamEvent.ToolUseStarted).count(), events::toString);
      ctx.completeNow();
    })));
  }

  @ParameterizedTest
  @CsvSource({"anthropic,broken-stream", "anthropic,stream-error", "openai,stream-error"})
  void aStreamFailingAfterContentIsNotRetried(String provider, String fault, Vertx vertx, VertxTestContext ctx) {
    MockFixture[] fx = new MockFixture[1];
    MockFixture.start(vertx, script(fault), MockFixture.options(provider).setMaxRetries(2)).compose(f -> {
      fx[0] = f;
      return f.client.stream(MockFixture.weatherRequest(), e -> { });
    }).onComplete(ctx.failing(err -> ctx.verify(() -> {
      ModelException e = assertInstanceOf(ModelException.class, err);
      assertFalse(e.retryable());
      assertEquals(1, fx[0].mock.requestCount());
      ctx.completeNow();
    })));
  }
}
