package io.agentbus.limits;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * Estimates the heap a JSON value holds, for byte budgets: strings at one byte per character
 * plus their object header (compact strings), map entries and list slots at their usual 64-bit
 * JVM sizes. It is an estimate, not a measurement: close enough to bound memory by bytes
 * rather than by counts, cheap enough to run once per message.
 */
public final class JsonHeap {

  private static final long STRING = 56;
  private static final long OBJECT = 96;
  private static final long FIELD = 40;
  private static final long ARRAY = 56;
  private static final long SLOT = 8;
  private static final long SCALAR = 16;
  /** Deeper values are counted as one scalar: the estimate never recurses without bound. */
  private static final int MAX_DEPTH = 256;

  private JsonHeap() {
  }

  /** @return the estimated heap bytes of {@code value} (a Vert.x JSON value, a String, a number...) */
  public static long estimate(Object value) {
    return estimate(value, 0);
  }

  private static long estimate(Object value, int depth) {
    if (value == null || depth > MAX_DEPTH) {
      return SCALAR;
    }
    if (value instanceof String s) {
      return STRING + s.length();
    }
    if (value instanceof JsonObject o) {
      return estimate(o.getMap(), depth);
    }
    if (value instanceof JsonArray a) {
      return estimate(a.getList(), depth);
    }
    if (value instanceof Map<?, ?> m) {
      long n = OBJECT;
      for (Map.Entry<?, ?> e : m.entrySet()) {
        n += FIELD + STRING + String.valueOf(e.getKey()).length() + estimate(e.getValue(), depth + 1);
      }
      return n;
    }
    if (value instanceof List<?> l) {
      long n = ARRAY;
      for (Object o : l) {
        n += SLOT + estimate(o, depth + 1);
      }
      return n;
    }
    if (value instanceof byte[] b) {
      return STRING + b.length;
    }
    return SCALAR;
  }
}
