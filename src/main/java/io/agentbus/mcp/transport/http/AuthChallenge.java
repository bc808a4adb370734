package io.agentbus.mcp.transport.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Summarizes {@code WWW-Authenticate} challenges (RFC 9110 section 11.6.1) for an error
 * message: each challenge's scheme with only its {@code realm}, {@code error} and
 * {@code scope} parameters. Anything else (nonces, opaque values, URLs with tokens) is left
 * out.
 */
final class AuthChallenge {

  private static final Set<String> SHOWN = Set.of("realm", "error", "scope");
  private static final Pattern PARAM = Pattern.compile("([A-Za-z0-9_.-]+)\\s*=\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|[^,\\s]*)");
  private static final Pattern SCHEME = Pattern.compile("(?:^|,)\\s*([A-Za-z0-9!#$%&'*+.^_`|~-]+)(?=\\s+[A-Za-z0-9_.-]+\\s*=|\\s*(?:,|$))");
  private static final int MAX = 200;

  private AuthChallenge() {
  }

  /** @return e.g. {@code Bearer realm="mcp", error="invalid_token"}; empty when there is none */
  static String describe(List<String> headerValues) {
    List<String> parts = new ArrayList<>();
    for (String value : headerValues) {
      if (value != null && !value.isBlank()) {
        parts.add(describe(value));
      }
    }
    String s = String.join(", ", parts);
    return s.length() > MAX ? s.substring(0, MAX) + "..." : s;
  }

  private static String describe(String value) {
    // split into challenges at each scheme token (a token not followed by '=')
    List<int[]> starts = new ArrayList<>();
    Matcher m = SCHEME.matcher(value);
    while (m.find()) {
      if (!insideQuotes(value, m.start(1))) {
        starts.add(new int[] {m.start(1), m.end(1)});
      }
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < starts.size(); i++) {
      int[] s = starts.get(i);
      String scheme = value.substring(s[0], s[1]);
      int end = i + 1 < starts.size() ? starts.get(i + 1)[0] : value.length();
      StringBuilder b = new StringBuilder(scheme);
      Matcher p = PARAM.matcher(value.substring(s[1], end));
      String sep = " ";
      while (p.find()) {
        if (SHOWN.contains(p.group(1).toLowerCase(Locale.ROOT))) {
          b.append(sep).append(p.group(1).toLowerCase(Locale.ROOT)).append('=').append(p.group(2));
          sep = ", ";
        }
      }
      out.add(b.toString());
    }
    return String.join(", ", out);
  }

  private static boolean insideQuotes(String s, int index) {
    boolean in = false;
    for (int i = 0; i < index; i++) {
      char c = s.charAt(i);
      if (c == '\\' && in) {
        i++;
      } else if (c == '"') {
        in = !in;
      }
    }
    return in;
  }
}
