package io.agentbus.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class SharedJsonCodecTest {

  @Test
  void localDeliveryHandsOverTheSameInstanceAndTheDefaultStillCopies(Vertx vertx, VertxTestContext ctx) {
    SharedJsonCodec.register(vertx);
    SharedJsonCodec.register(vertx);
    JsonObject body = new JsonObject().put("content", new JsonArray().add("x"));
    vertx.eventBus().<JsonObject>consumer("test.shared", m -> m.reply(m.body(), SharedJsonCodec.shared()));
    vertx.eventBus().<JsonObject>consumer("test.copied", m -> m.reply(m.body()));
    vertx.eventBus().<JsonObject>request("test.shared", body, SharedJsonCodec.shared())
      .compose(shared -> {
        ctx.verify(() -> assertSame(body, shared.body()));
        return vertx.eventBus().<JsonObject>request("test.copied", body);
      })
      .onComplete(ctx.succeeding(copied -> ctx.verify(() -> {
        assertNotSame(body, copied.body());
        assertEquals(body, copied.body());
        ctx.completeNow();
      })));
  }

  @Test
  void theWireFormatRoundTrips() {
    SharedJsonCodec codec = new SharedJsonCodec();
    JsonObject json = new JsonObject().put("a", 1).put("b", new JsonArray().add("é"));
    Buffer buffer = Buffer.buffer().appendString("prefix");
    codec.encodeToWire(buffer, json);
    assertEquals(json, codec.decodeFromWire(6, buffer));
  }
}
