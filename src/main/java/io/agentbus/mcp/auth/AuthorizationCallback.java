package io.agentbus.mcp.auth;

import io.vertx.core.MultiMap;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The query of the redirect back from the authorization server. Holds the code: {@link #toString()}
 * does not show it.
 *
 * @param code the authorization code, or {@code null}
 * @param state the state, or {@code null}
 * @param iss the issuer (RFC 9207), or {@code null}
 * @param error the OAuth error code, or {@code null}
 * @param errorDescription the error description, or {@code null}
 */
public record AuthorizationCallback(String code, String state, String iss, String error, String errorDescription) {

  /** Reads the callback from a request's query parameters. */
  public static AuthorizationCallback of(MultiMap query) {
    return new AuthorizationCallback(query.get("code"), query.get("state"), query.get("iss"), query.get("error"),
      query.get("error_description"));
  }

  /** Reads the callback from a redirect URL (e.g. a {@code Location} header). */
  public static AuthorizationCallback fromRedirect(String url) {
    MultiMap q = MultiMap.caseInsensitiveMultiMap();
    String raw = URI.create(url).getRawQuery();
    if (raw != null) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String k = eq < 0 ? pair : pair.substring(0, eq);
        String v = eq < 0 ? "" : pair.substring(eq + 1);
        q.add(URLDecoder.decode(k, StandardCharsets.UTF_8), URLDecoder.decode(v, StandardCharsets.UTF_8));
      }
    }
    return of(q);
  }

  @Override
  public String toString() {
    return "AuthorizationCallback[code=" + (code != null ? "***" : null) + ", iss=" + iss + ", error=" + error + "]";
  }
}
