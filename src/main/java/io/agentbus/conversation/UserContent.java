package io.agentbus.conversation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;

/**
 * Checks the content of a user message sent by a caller against the Messages API's user
 * content blocks, so that nothing the model API would reject is ever stored: a history that
 * holds such a block fails every later turn. A string, or an array of {@code text},
 * {@code image} and {@code document} blocks, each with exactly the fields the API defines and
 * values of the right types. Caller-supplied {@code cache_control} is dropped (Agentbus places
 * its own breakpoints); any other unknown field is an error, which also bounds the nesting.
 */
final class UserContent {

  /** At most this many blocks in one message. */
  static final int MAX_BLOCKS = 1_000;
  private static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp");

  /** What is wrong with the content, said so that the caller can fix it. */
  static final class Invalid extends Exception {
    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  private UserContent() {
  }

  /**
   * @return the content to store: the string as it is, or a copy of the blocks without
   *     {@code cache_control}
   * @throws Invalid when the model API would reject it
   */
  static Object normalize(Object content) throws Invalid {
    if (content instanceof String s) {
      if (s.isBlank()) {
        throw new Invalid("field 'content' must not be empty");
      }
      return s;
    }
    if (!(content instanceof JsonArray blocks) || blocks.isEmpty()) {
      throw new Invalid("field 'content' must be a non-empty string or an array of content blocks");
    }
    if (blocks.size() > MAX_BLOCKS) {
      throw new Invalid("field 'content' has " + blocks.size() + " blocks; at most " + MAX_BLOCKS + " are accepted");
    }
    JsonArray out = new JsonArray();
    for (int i = 0; i < blocks.size(); i++) {
      out.add(block(blocks.getValue(i), "content[" + i + "]"));
    }
    return out;
  }

  private static JsonObject block(Object value, String where) throws Invalid {
    if (!(value instanceof JsonObject b) || !(b.getValue("type") instanceof String type)) {
      throw new Invalid(where + " must be an object with a string 'type'");
    }
    return switch (type) {
      case "text" -> {
        only(b, where, Set.of("type", "text"));
        nonEmptyString(b, "text", where);
        yield new JsonObject().put("type", "text").put("text", b.getValue("text"));
      }
      case "image" -> {
        only(b, where, Set.of("type", "source"));
        yield new JsonObject().put("type", "image").put("source", imageSource(b.getValue("source"), where + ".source"));
      }
      case "document" -> {
        only(b, where, Set.of("type", "source", "title", "context", "citations"));
        JsonObject doc = new JsonObject().put("type", "document").put("source", documentSource(b.getValue("source"), where + ".source"));
        optionalString(b, "title", where, doc);
        optionalString(b, "context", where, doc);
        if (b.containsKey("citations")) {
          if (!(b.getValue("citations") instanceof JsonObject c) || c.size() != 1 || !(c.getValue("enabled") instanceof Boolean on)) {
            throw new Invalid(where + ".citations must be {\"enabled\": true|false}");
          }
          doc.put("citations", new JsonObject().put("enabled", on));
        }
        yield doc;
      }
      default -> throw new Invalid(where + " has type '" + type + "'; a caller may send text, image and document blocks");
    };
  }

  private static JsonObject imageSource(Object value, String where) throws Invalid {
    JsonObject s = source(value, where);
    switch (s.getString("type")) {
      case "base64" -> {
        only(s, where, Set.of("type", "media_type", "data"));
        if (!IMAGE_TYPES.contains(s.getValue("media_type") instanceof String m ? m : "")) {
          throw new Invalid(where + ".media_type must be one of " + IMAGE_TYPES);
        }
        nonEmptyString(s, "data", where);
      }
      case "url" -> url(s, where);
      default -> throw new Invalid(where + ".type must be \"base64\" or \"url\"");
    }
    return s;
  }

  private static JsonObject documentSource(Object value, String where) throws Invalid {
    JsonObject s = source(value, where);
    switch (s.getString("type")) {
      case "base64" -> {
        only(s, where, Set.of("type", "media_type", "data"));
        if (!"application/pdf".equals(s.getValue("media_type"))) {
          throw new Invalid(where + ".media_type must be \"application/pdf\" for a base64 document");
        }
        nonEmptyString(s, "data", where);
      }
      case "text" -> {
        only(s, where, Set.of("type", "media_type", "data"));
        if (!"text/plain".equals(s.getValue("media_type"))) {
          throw new Invalid(where + ".media_type must be \"text/plain\" for a text document");
        }
        nonEmptyString(s, "data", where);
      }
      case "url" -> url(s, where);
      default -> throw new Invalid(where + ".type must be \"base64\", \"text\" or \"url\"");
    }
    return s;
  }

  private static JsonObject source(Object value, String where) throws Invalid {
    if (!(value instanceof JsonObject s) || !(s.getValue("type") instanceof String)) {
      throw new Invalid(where + " must be an object with a string 'type'");
    }
    JsonObject copy = s.copy();
    copy.remove("cache_control");
    return copy;
  }

  private static void url(JsonObject s, String where) throws Invalid {
    only(s, where, Set.of("type", "url"));
    if (!(s.getValue("url") instanceof String u) || !(u.startsWith("https://") || u.startsWith("http://"))) {
      throw new Invalid(where + ".url must be an http(s) URL");
    }
  }

  private static void only(JsonObject o, String where, Set<String> allowed) throws Invalid {
    for (Map.Entry<String, Object> e : o) {
      if (!allowed.contains(e.getKey()) && !"cache_control".equals(e.getKey())) {
        throw new Invalid(where + " has an unknown field '" + e.getKey() + "' (allowed: " + allowed + ")");
      }
    }
  }

  private static void nonEmptyString(JsonObject o, String field, String where) throws Invalid {
    if (!(o.getValue(field) instanceof String s) || s.isEmpty()) {
      throw new Invalid(where + "." + field + " must be a non-empty string");
    }
  }

  private static void optionalString(JsonObject from, String field, String where, JsonObject to) throws Invalid {
    Object v = from.getValue(field);
    if (v == null) {
      return;
    }
    if (!(v instanceof String s)) {
      throw new Invalid(where + "." + field + " must be a string");
    }
    to.put(field, s);
  }
}
