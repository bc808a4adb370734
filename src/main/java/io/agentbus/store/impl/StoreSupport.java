package io.agentbus.store.impl;

import io.agentbus.store.ConversationStore;
import io.agentbus.store.StoreException;
import io.agentbus.store.StoreException.Kind;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** What every implementation does the same way: titles, usage sums, cursors, argument checks. */
final class StoreSupport {

  /** The longest title, in characters; a longer first user text is cut and ends with an ellipsis. */
  static final int TITLE_MAX_CHARS = 80;

  /** The usage fields that also live in columns of their own (summed by {@code usageTotals}). */
  static final List<String> USAGE_COLUMNS =
    List.of("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens");

  private static final String CURSOR_PREFIX = "c1:";

  private StoreSupport() {
  }

  /** @return the first user text among {@code messages}, whitespace collapsed and cut, or {@code null} */
  static String title(List<JsonObject> messages) {
    for (JsonObject message : messages) {
      if (!"user".equals(message.getValue("role"))) {
        continue;
      }
      String text = null;
      Object content = message.getValue("content");
      if (content instanceof String s) {
        text = s;
      } else if (content instanceof JsonArray blocks) {
        for (Object block : blocks) {
          if (block instanceof JsonObject b && "text".equals(b.getValue("type")) && b.getValue("text") instanceof String s
            && !s.isBlank()) {
            text = s;
            break;
          }
        }
      }
      if (text != null && !text.isBlank()) {
        return cut(text.strip().replaceAll("\\s+", " "));
      }
    }
    return null;
  }

  private static String cut(String text) {
    if (text.codePointCount(0, text.length()) <= TITLE_MAX_CHARS) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, TITLE_MAX_CHARS - 1)) + "…";
  }

  /**
   * @return a new object: {@code totals} plus {@code turn}, field by field (integers summed,
   *     objects merged recursively, anything else replaced by the turn's value)
   */
  static JsonObject mergeUsage(JsonObject totals, JsonObject turn) {
    JsonObject merged = totals == null ? new JsonObject() : totals.copy();
    if (turn == null) {
      return merged;
    }
    for (Map.Entry<String, Object> e : turn) {
      Object old = merged.getValue(e.getKey());
      Object add = e.getValue();
      if (old instanceof Number a && add instanceof Number b && isIntegral(a) && isIntegral(b)) {
        merged.put(e.getKey(), a.longValue() + b.longValue());
      } else if (old instanceof Number a && add instanceof Number b) {
        merged.put(e.getKey(), a.doubleValue() + b.doubleValue());
      } else if (old instanceof JsonObject a && add instanceof JsonObject b) {
        merged.put(e.getKey(), mergeUsage(a, b));
      } else if (add instanceof JsonObject b) {
        merged.put(e.getKey(), b.copy());
      } else if (add instanceof JsonArray b) {
        merged.put(e.getKey(), b.copy());
      } else {
        merged.put(e.getKey(), add);
      }
    }
    return merged;
  }

  private static boolean isIntegral(Number n) {
    return n instanceof Integer || n instanceof Long || n instanceof Short || n instanceof Byte;
  }

  /** @return the usage field as a long, 0 when absent or not a number */
  static long usageLong(JsonObject usage, String field) {
    return usage != null && usage.getValue(field) instanceof Number n ? n.longValue() : 0L;
  }

  /** @return the totals object {@code usageTotals} answers */
  static JsonObject totals(long conversations, long turns, long[] columns) {
    JsonObject json = new JsonObject().put("conversations", conversations).put("turns", turns);
    for (int i = 0; i < USAGE_COLUMNS.size(); i++) {
      json.put(USAGE_COLUMNS.get(i), columns[i]);
    }
    return json;
  }

  /** A position in a listing: the last item's sort key. */
  record Cursor(long updatedAt, String id) {
  }

  static String encodeCursor(long updatedAt, String id) {
    String raw = CURSOR_PREFIX + updatedAt + ":" + id;
    return Base64.getUrlEncoder().withoutPadding().encodeToString(raw.getBytes(StandardCharsets.UTF_8));
  }

  /** @return the cursor, {@code null} for {@code null} */
  static Cursor decodeCursor(String cursor) {
    if (cursor == null) {
      return null;
    }
    try {
      String raw = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (raw.startsWith(CURSOR_PREFIX)) {
        int colon = raw.indexOf(':', CURSOR_PREFIX.length());
        if (colon > 0) {
          return new Cursor(Long.parseLong(raw.substring(CURSOR_PREFIX.length(), colon)), raw.substring(colon + 1));
        }
      }
    } catch (IllegalArgumentException e) {
      // falls through: not one of ours
    }
    throw new StoreException(Kind.INVALID, "invalid cursor");
  }

  static void checkId(String id) {
    if (id == null || id.isEmpty()) {
      throw new StoreException(Kind.INVALID, "a conversation id is required");
    }
  }

  static void checkLimit(int limit) {
    if (limit < 1 || limit > ConversationStore.MAX_LIST_LIMIT) {
      throw new StoreException(Kind.INVALID, "limit must be from 1 to " + ConversationStore.MAX_LIST_LIMIT + " (was " + limit + ")");
    }
  }

  static void checkTurn(String id, long expectedVersion, List<JsonObject> messages) {
    checkId(id);
    if (expectedVersion < 0) {
      throw new StoreException(Kind.INVALID, "expectedVersion must be >= 0 (was " + expectedVersion + ")");
    }
    if (messages == null) {
      throw new StoreException(Kind.INVALID, "messages cannot be null");
    }
    for (JsonObject m : messages) {
      if (m == null) {
        throw new StoreException(Kind.INVALID, "a message cannot be null");
      }
    }
  }

  static StoreException notFound(String id) {
    return new StoreException(Kind.NOT_FOUND, "conversation " + id + " not found");
  }

  static StoreException conflict(String id, long expected, long stored) {
    return new StoreException(Kind.CONFLICT,
      "conversation " + id + " is at version " + stored + ", not " + expected + ": another writer committed first");
  }

  static StoreException corrupt(String store, String id, String what, Throwable cause) {
    return new StoreException(Kind.CORRUPT,
      "conversation " + id + " in " + store + " cannot be loaded: " + what, cause);
  }
}
