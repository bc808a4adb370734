package io.agentbus.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageCodec;
import io.vertx.core.json.JsonObject;

/**
 * A {@link JsonObject} codec that hands the same instance to a local receiver instead of
 * deep-copying it (the default codec copies on every delivery). Used on the hot request and
 * reply paths of a turn (dispatch, tools/call, turn results), where the sender never touches
 * the object again after sending; receivers may keep it but must not mutate it. Across JVMs
 * it encodes like the default codec, so a clustered bus still works.
 */
public final class SharedJsonCodec implements MessageCodec<JsonObject, JsonObject> {

  /** The codec name for {@link DeliveryOptions#setCodecName}. */
  public static final String NAME = "agentbus.json.shared";

  /** Registers the codec on this Vert.x instance's event bus, once. */
  public static void register(Vertx vertx) {
    try {
      vertx.eventBus().registerCodec(new SharedJsonCodec());
    } catch (IllegalStateException alreadyRegistered) {
      // registered by another verticle of the same instance
    }
  }

  /** @return delivery options that deliver the body without a copy */
  public static DeliveryOptions shared() {
    return new DeliveryOptions().setCodecName(NAME);
  }

  @Override
  public void encodeToWire(Buffer buffer, JsonObject json) {
    Buffer encoded = json.toBuffer();
    buffer.appendInt(encoded.length());
    buffer.appendBuffer(encoded);
  }

  @Override
  public JsonObject decodeFromWire(int pos, Buffer buffer) {
    int length = buffer.getInt(pos);
    return new JsonObject(buffer.slice(pos + 4, pos + 4 + length));
  }

  @Override
  public JsonObject transform(JsonObject json) {
    return json;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public byte systemCodecID() {
    return -1;
  }
}
