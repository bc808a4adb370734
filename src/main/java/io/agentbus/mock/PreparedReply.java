package io.agentbus.mock;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A reply ready to be rendered: ids assigned, usage known.
 *
 * @param id the message / completion id
 * @param model the model echoed from the request
 * @param content canonical blocks, every tool_use with an id
 * @param stopReason the canonical stop reason
 * @param inputTokens input tokens
 * @param outputTokens output tokens
 */
record PreparedReply(String id, String model, JsonArray content, String stopReason, long inputTokens, long outputTokens) {

  private static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

  /**
   * @param reply the strategy's reply
   * @param model the requested model
   * @param idPrefix message id prefix
   * @param toolIdPrefix tool call id prefix
   * @param requestChars size of the request body, for the token estimate (chars / 4)
   * @return the prepared reply
   */
  static PreparedReply of(MockReply reply, String model, String idPrefix, String toolIdPrefix, long requestChars) {
    JsonArray content = new JsonArray();
    for (Object o : reply.content()) {
      JsonObject b = ((JsonObject) o).copy();
      if ("tool_use".equals(b.getString("type"))) {
        if (b.getString("id") == null) {
          b.put("id", toolIdPrefix + random(24));
        }
        if (b.getValue("input") == null) {
          b.put("input", new JsonObject());
        }
      }
      content.add(b);
    }
    long in = Math.max(1, requestChars / 4);
    long out = Math.max(1, content.encode().length() / 4);
    if (reply.usage() != null) {
      in = reply.usage().getLong("input_tokens", in);
      out = reply.usage().getLong("output_tokens", out);
    }
    return new PreparedReply(idPrefix + random(24), model, content, reply.stopReason(), in, out);
  }

  /** @return {@code n} random alphanumerics: ids only need to differ, not to be unguessable */
  static String random(int n) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append(ALNUM.charAt(random.nextInt(ALNUM.length())));
    }
    return sb.toString();
  }

  /** Splits text into pieces of about {@code size} chars without splitting surrogate pairs. */
  static java.util.List<String> pieces(String text, int size) {
    java.util.List<String> out = new java.util.ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      int end = Math.min(text.length(), i + size);
      if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) {
        end++;
      }
      out.add(text.substring(i, end));
      i = end;
    }
    return out;
  }
}
