package io.agentbus.model.impl;

import io.agentbus.model.ModelRequest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's request bodies as bytes, with the {@code tools} member encoded once per shared
 * tools array ({@link ModelRequest#isToolsShared()}). A catalog snapshot's tools go into every
 * model call of every turn until the catalog changes, and with many tools their schemas are
 * most of what a request body costs to encode. The projection into the provider's form is
 * still done per call by the codec (it is cheap); only its encoding is kept. Bounded, and
 * safe from any thread.
 */
final class EncodedTools {

  /** The most tools arrays kept; when full the map starts over (snapshots replace each other). */
  static final int MAX_ARRAYS = 16;
  private static final byte[] TOOLS_MEMBER = ",\"tools\":".getBytes(StandardCharsets.US_ASCII);

  private final Map<Identity, byte[]> encoded = new ConcurrentHashMap<>();
  private final AtomicLong encodings = new AtomicLong();

  /**
   * @param request the canonical request {@code body} was built from
   * @param body the provider's request body; its {@code tools} member is removed when it comes
   *     from the cache
   * @return the body's JSON bytes
   */
  Buffer encode(ModelRequest request, JsonObject body) {
    if (!request.isToolsShared() || !(body.getValue("tools") instanceof JsonArray projected) || projected.isEmpty()
        || body.size() < 2) {
      return body.toBuffer();
    }
    Identity key = new Identity(request.getTools());
    byte[] tools = encoded.get(key);
    if (tools == null) {
      tools = projected.toBuffer().getBytes();
      encodings.incrementAndGet();
      if (encoded.size() >= MAX_ARRAYS) {
        encoded.clear();
      }
      encoded.put(key, tools);
    }
    body.remove("tools");
    Buffer rest = body.toBuffer();
    // "{...}" without its closing brace, then ,"tools":[...] and the brace
    return Buffer.buffer(rest.length() + TOOLS_MEMBER.length + tools.length)
      .appendBuffer(rest, 0, rest.length() - 1)
      .appendBytes(TOOLS_MEMBER)
      .appendBytes(tools)
      .appendByte((byte) '}');
  }

  /** @return how many tools arrays were encoded so far (each shared one once, while kept) */
  long encodings() {
    return encodings.get();
  }

  /** A tools array by identity: its content is never compared or hashed. */
  private static final class Identity {
    private final JsonArray tools;

    Identity(JsonArray tools) {
      this.tools = tools;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Identity other && other.tools == tools;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(tools);
    }
  }
}
