package io.agentbus.http;

import static io.agentbus.http.ApprovalFixture.ALICE;
import static io.agentbus.http.ApprovalFixture.called;
import static io.agentbus.http.ApprovalFixture.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.Integration;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.junit5.Timeout;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Draining does not wait out an approval: a call waiting for one when Agentbus drains is refused
 * at once (an {@code is_error} result saying why, the server never called), so the turn ends and
 * is committed and the drain completes long before the approval would have timed out.
 */
@Integration
@ExtendWith(VertxExtension.class)
class ApprovalDrainTest {

  @Test
  @Timeout(value = 60, timeUnit = TimeUnit.SECONDS)
  void aDrainRefusesTheCallsWaitingForApproval(Vertx vertx, VertxTestContext ctx) {
    // an approval nobody answers would hold the turn for ten minutes
    ApprovalFixture.start(vertx, 600_000).compose(fx -> fx.create(ALICE)
      .compose(id -> fx.awaitEvent(id, type("approval_required")).compose(required -> {
        Future<HttpResponse<Buffer>> turn = fx.send(id, ALICE, "APPROVE before a drain");
        Future<Void> drained = required.compose(event -> fx.agentbus.drain(30_000));
        return Future.all(turn, drained).compose(both -> {
          HttpResponse<Buffer> done = turn.result();
          ctx.verify(() -> {
            assertEquals(200, done.statusCode(), done.bodyAsString());
            assertTrue(done.bodyAsJsonObject().getJsonArray("toolCalls").getJsonObject(0).getBoolean("isError"));
          });
          return Future.all(fx.serverCalls(), fx.request(HttpMethod.GET, "/v1/conversations/" + id, ALICE).send());
        }).map(all -> {
          ctx.verify(() -> {
            assertFalse(called(all.resultAt(0), "approve-me"));
            HttpResponse<Buffer> got = all.resultAt(1);
            JsonObject result = got.bodyAsJsonObject().getJsonArray("messages").getJsonObject(2).getJsonArray("content")
              .getJsonObject(0);
            String text = result.getJsonArray("content").getJsonObject(0).getString("text");
            assertTrue(result.getBoolean("is_error"));
            assertTrue(text.contains("shutting down"), text);
          });
          return null;
        });
      }))
      .eventually(() -> fx.close()))
      .onComplete(ctx.succeedingThenComplete());
  }
}
