package io.agentbus.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/** Reads an {@code application/x-www-form-urlencoded} body, as the test authorization servers receive them. */
public final class FormBody {

  private FormBody() {
  }

  /** @return the body's fields (names case-insensitive) */
  public static MultiMap parse(Buffer body) {
    MultiMap form = MultiMap.caseInsensitiveMultiMap();
    for (String pair : body.toString().split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        form.add(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
          URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return form;
  }
}
