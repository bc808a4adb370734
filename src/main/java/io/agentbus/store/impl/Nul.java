package io.agentbus.store.impl;

import java.util.regex.Pattern;

/**
 * PostgreSQL stores no U+0000 in {@code text} nor {@code jsonb}: these replace it with U+FFFD
 * (in encoded JSON, an escaped {@code \u0000} that is not itself an escaped backslash followed
 * by "u0000").
 */
final class Nul {

  private static final Pattern ESCAPED_NUL = Pattern.compile("(?<!\\\\)((?:\\\\\\\\)*)\\\\u0000");

  private Nul() {
  }

  /** @return {@code json} (encoded JSON) with every escaped NUL turned into U+FFFD */
  static String json(String json) {
    if (json.indexOf("\\u0000") < 0) {
      return json;
    }
    return ESCAPED_NUL.matcher(json).replaceAll("$1\\\\ufffd");
  }

  /** @return {@code text} with every NUL turned into U+FFFD, or {@code null} */
  static String text(String text) {
    return text == null || text.indexOf('\0') < 0 ? text : text.replace('\0', '\uFFFD');
  }
}
