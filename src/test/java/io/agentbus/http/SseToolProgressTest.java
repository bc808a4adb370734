package io.agentbus.http;

import static io.agentbus.http.ApiFixture.ALICE;
import static io.agentbus.http.ApiFixture.SLOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.sse.SseEvent;
import io.agentbus.testing.Integration;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A tool's {@code notifications/progress} reaches an SSE client as {@code tool_call_progress}
 * (real server-everything over stdio: its long-running operation reports progress whenever the
 * call carries a progressToken, which every call now does).
 */
@Integration
@ExtendWith(VertxExtension.class)
class SseToolProgressTest {

  static ApiFixture fx;

  @BeforeAll
  static void start(Vertx vertx, VertxTestContext ctx) {
    ApiFixture.start(vertx).onComplete(ctx.succeeding(f -> {
      fx = f;
      ctx.completeNow();
    }));
  }

  @AfterAll
  static void stop(VertxTestContext ctx) {
    fx.close().onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void progressOfARunningToolIsStreamed(VertxTestContext ctx) {
    fx.create(ALICE).compose(id -> fx.stream(id, ALICE, "SLOW with progress", null).map(s -> {
      ctx.verify(() -> {
        List<String> types = s.events().stream().map(SseEvent::event).toList();
        assertTrue(types.contains("tool_call_progress"), types::toString);
        int started = types.indexOf("tool_call_started");
        int progress = types.indexOf("tool_call_progress");
        int finished = types.indexOf("tool_call_finished");
        assertTrue(started < progress && progress < finished, types::toString);
        JsonObject p = new JsonObject(s.events().get(progress).data());
        JsonObject start = new JsonObject(s.events().get(started).data());
        assertEquals("tool_call_progress", p.getString("type"));
        assertEquals(id, p.getString("conversationId"));
        assertEquals(start.getString("tool_use_id"), p.getString("tool_use_id"));
        assertEquals(SLOW, p.getString("name"));
        assertEquals("everything", p.getString("server"));
        assertTrue(p.getValue("progress") instanceof Number, p::encode);
        assertFalse(new JsonObject(s.events().get(finished).data()).getBoolean("is_error"));
      });
      return s;
    })).onComplete(ctx.succeedingThenComplete());
  }
}
