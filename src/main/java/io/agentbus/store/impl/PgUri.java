package io.agentbus.store.impl;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps a PostgreSQL connection URI's password out of logs and errors: {@link #redact} gives
 * the URI without credentials nor query, {@link #scrub} removes the password from any text (a
 * driver message that echoes the URI, say).
 */
public final class PgUri {

  private PgUri() {
  }

  /**
   * @return {@code scheme://user@host:port/database} of {@code uri}: no password, no query (where
   *     {@code password=} may hide), never the input itself when it cannot be parsed
   */
  public static String redact(String uri) {
    if (uri == null) {
      return null;
    }
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      return "(invalid uri)";
    }
    String scheme = uri.substring(0, schemeEnd);
    String rest = uri.substring(schemeEnd + 3);
    int q = rest.indexOf('?');
    if (q >= 0) {
      rest = rest.substring(0, q);
    }
    int slash = rest.indexOf('/');
    String authority = slash >= 0 ? rest.substring(0, slash) : rest;
    String path = slash >= 0 ? rest.substring(slash) : "";
    int at = authority.lastIndexOf('@');
    String user = "";
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      int colon = userInfo.indexOf(':');
      user = (colon >= 0 ? userInfo.substring(0, colon) : userInfo) + "@";
      authority = authority.substring(at + 1);
    }
    return scheme + "://" + user + authority + path;
  }

  /** @return {@code text} with every occurrence of the URI's password (as written and decoded) replaced by {@code ***} */
  public static String scrub(String text, String uri) {
    if (text == null || uri == null) {
      return text;
    }
    String out = text;
    for (String secret : secrets(uri)) {
      out = out.replace(secret, "***");
    }
    return out;
  }

  /** @return the password as written in the URI and decoded, plus any {@code password=} query value */
  private static List<String> secrets(String uri) {
    List<String> found = new ArrayList<>();
    int schemeEnd = uri.indexOf("://");
    String rest = schemeEnd >= 0 ? uri.substring(schemeEnd + 3) : uri;
    int q = rest.indexOf('?');
    String query = q >= 0 ? rest.substring(q + 1) : "";
    String beforeQuery = q >= 0 ? rest.substring(0, q) : rest;
    int slash = beforeQuery.indexOf('/');
    String authority = slash >= 0 ? beforeQuery.substring(0, slash) : beforeQuery;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      String userInfo = authority.substring(0, at);
      int colon = userInfo.indexOf(':');
      if (colon >= 0) {
        add(found, userInfo.substring(colon + 1));
      }
    }
    for (String pair : query.split("&")) {
      if (pair.startsWith("password=")) {
        add(found, pair.substring("password=".length()));
      }
    }
    return found;
  }

  private static void add(List<String> found, String raw) {
    if (raw.isEmpty()) {
      return;
    }
    found.add(raw);
    try {
      String decoded = URLDecoder.decode(raw, StandardCharsets.UTF_8);
      if (!decoded.equals(raw) && !decoded.isEmpty()) {
        found.add(decoded);
      }
    } catch (IllegalArgumentException e) {
      // not valid percent-encoding: the raw form is all there is
    }
  }
}
