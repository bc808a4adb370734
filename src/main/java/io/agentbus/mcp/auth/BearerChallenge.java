package io.agentbus.mcp.auth;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code Bearer} challenge of a 401 or 403 response ({@code WWW-Authenticate}, RFC 6750
 * and RFC 9728): {@code resource_metadata}, {@code scope} and {@code error}. Values of other
 * schemes are ignored.
 *
 * @param resourceMetadata the protected-resource metadata URL, or {@code null}
 * @param scopes the scopes the server asks for (empty when none named)
 * @param error the error code, e.g. {@code insufficient_scope}, or {@code null}
 */
record BearerChallenge(String resourceMetadata, List<String> scopes, String error) {

  static final BearerChallenge NONE = new BearerChallenge(null, List.of(), null);

  private static final Pattern TOKEN = Pattern.compile(
    "\\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?:\\s*=\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[^,\\s]*))?\\s*(,|$)?");

  /** Parses every {@code WWW-Authenticate} value; the first Bearer challenge wins. */
  static BearerChallenge parse(List<String> headerValues) {
    if (headerValues == null) {
      return NONE;
    }
    for (String v : headerValues) {
      BearerChallenge c = parseOne(v);
      if (c != null) {
        return c;
      }
    }
    return NONE;
  }

  private static BearerChallenge parseOne(String value) {
    if (value == null) {
      return null;
    }
    Map<String, String> params = null;
    Matcher m = TOKEN.matcher(value);
    int at = 0;
    while (at < value.length() && m.find(at) && m.start() == at && m.end() > at) {
      String name = m.group(1);
      String raw = m.group(2);
      at = m.end();
      if (raw == null) {
        // a scheme token: a new challenge starts (a token68 after it is skipped by the next find)
        if (params != null) {
          break;
        }
        if (name.equalsIgnoreCase("Bearer")) {
          params = new HashMap<>();
        }
        continue;
      }
      if (params != null) {
        params.putIfAbsent(name.toLowerCase(Locale.ROOT), unquote(raw));
      }
    }
    if (params == null) {
      return null;
    }
    String scope = params.get("scope");
    List<String> scopes = scope == null || scope.isBlank() ? List.of()
      : Arrays.stream(scope.trim().split("\\s+")).toList();
    return new BearerChallenge(params.get("resource_metadata"), scopes, params.get("error"));
  }

  private static String unquote(String raw) {
    if (raw.length() >= 2 && raw.startsWith("\"") && raw.endsWith("\"")) {
      return raw.substring(1, raw.length() - 1).replaceAll("\\\\(.)", "$1");
    }
    return raw;
  }

  /** @return whether the server says the token lacks scope */
  boolean insufficientScope() {
    return "insufficient_scope".equals(error);
  }
}
