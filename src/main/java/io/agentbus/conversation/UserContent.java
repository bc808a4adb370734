package io.agentbus.conversation;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/** Checks the content of a user message sent by a caller. */
final class UserContent {

  private static final Set<String> ALLOWED_BLOCKS = Set.of("text", "image", "document");

  private UserContent() {
  }

  /** @return {@code null} when acceptable, else what is wrong */
  static String check(Object content) {
    if (content instanceof String s) {
      return s.isBlank() ? "field 'content' must not be empty" : null;
    }
    if (!(content instanceof JsonArray blocks) || blocks.isEmpty()) {
      return "field 'content' must be a non-empty string or an array of content blocks";
    }
    for (Object o : blocks) {
      if (!(o instanceof JsonObject b) || !(b.getValue("type") instanceof String type)) {
        return "every content block must be an object with a 'type'";
      }
      if (!ALLOWED_BLOCKS.contains(type)) {
        return "content blocks of type '" + type + "' cannot be sent by a caller (text, image, document)";
      }
    }
    return null;
  }
}
