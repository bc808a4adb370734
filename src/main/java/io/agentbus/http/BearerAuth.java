package io.agentbus.http;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * Bearer-token authentication: {@code Authorization: Bearer <token>} names a tenant, which is
 * put in the routing context under {@link #TENANT}. Tokens are kept only as SHA-256 digests,
 * looked up by digest (no early-exit string comparison on the secret), and never logged or
 * echoed. With no tokens configured every request passes with no tenant.
 */
final class BearerAuth implements Handler<RoutingContext> {

  /** Routing-context key of the authenticated tenant ({@code null} without authentication). */
  static final String TENANT = "agentbus.tenant";
  /** The {@code WWW-Authenticate} challenge of a 401. */
  static final String CHALLENGE = "Bearer realm=\"agentbus\"";

  private final Map<String, String> tenantByDigest = new HashMap<>();
  private final Responses responses;

  BearerAuth(Map<String, String> tokens, Responses responses) {
    tokens.forEach((token, tenant) -> tenantByDigest.put(digest(token), tenant));
    this.responses = responses;
  }

  boolean enabled() {
    return !tenantByDigest.isEmpty();
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (!enabled()) {
      ctx.next();
      return;
    }
    String header = ctx.request().getHeader(HttpHeaders.AUTHORIZATION);
    if (header == null) {
      responses.error(ctx, ApiError.of(401, "missing 'Authorization: Bearer <token>' header"));
      return;
    }
    if (header.length() < 8 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      responses.error(ctx, ApiError.of(401, "the Authorization header must use the Bearer scheme"));
      return;
    }
    String tenant = tenantByDigest.get(digest(header.substring(7).trim()));
    if (tenant == null) {
      responses.error(ctx, ApiError.of(401, "invalid bearer token"));
      return;
    }
    ctx.put(TENANT, tenant);
    ctx.next();
  }

  private static String digest(String token) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing", e);
    }
  }
}
