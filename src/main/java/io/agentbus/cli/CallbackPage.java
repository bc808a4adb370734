package io.agentbus.cli;

import io.vertx.core.http.HttpServerRequest;

/** The small HTML page the browser sees when it comes back from an authorization. */
final class CallbackPage {

  private CallbackPage() {
  }

  /** Answers {@code req} with a page of {@code title} and {@code text} (both escaped). */
  static void send(HttpServerRequest req, int status, String title, String text) {
    String html = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Agentbus: " + escape(title)
      + "</title></head><body style=\"font-family: sans-serif; margin: 3em\"><h1>" + escape(title) + "</h1><p>"
      + escape(text) + "</p></body></html>";
    req.response().setStatusCode(status)
      .putHeader("Content-Type", "text/html; charset=utf-8")
      .putHeader("Cache-Control", "no-store")
      // the address holds the code: it must not travel on as a Referer
      .putHeader("Referrer-Policy", "no-referrer")
      .putHeader("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
      .end(html);
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(Character.isISOControl(c) ? ' ' : c);
      }
    }
    return b.toString();
  }
}
