package io.agentbus.mcp;

import java.net.URI;

/** Strips credentials and query strings from URLs before they reach a log or an error. */
public final class UrlRedaction {

  private UrlRedaction() {
  }

  /** @return scheme://host[:port]/path of {@code url}, or "(invalid url)" */
  public static String redact(String url) {
    if (url == null) {
      return null;
    }
    try {
      URI uri = URI.create(url);
      String port = uri.getPort() >= 0 ? ":" + uri.getPort() : "";
      String path = uri.getRawPath() == null ? "" : uri.getRawPath();
      return uri.getScheme() + "://" + uri.getHost() + port + path;
    } catch (IllegalArgumentException e) {
      return "(invalid url)";
    }
  }
}
