package io.agentbus.mcp.auth;

import io.vertx.core.Future;
import java.util.List;

/**
 * OAuth for one connection: one MCP server as one tenant ({@code null}: the shared
 * identity). A transport calls {@link #prepare()} before a request, sends
 * {@link #authorization()} as the {@code Authorization} header (to the MCP server's origin
 * only), and on a 401 or a 403 {@code insufficient_scope} calls {@link #unauthorized} or
 * {@link #insufficientScope} and retries the request once it succeeds, at most
 * {@link #MAX_UNAUTHORIZED_RETRIES} and {@link #MAX_STEP_UPS} times per request. Those fail
 * with an {@code McpException} of kind {@code AUTHORIZATION_REQUIRED} (no person can be
 * asked now; the data holds the authorization URL) or {@code AUTHORIZATION_FAILED}.
 */
public final class OAuthSession {

  /** Authorizations after a 401 per request. */
  public static final int MAX_UNAUTHORIZED_RETRIES = 1;
  /** Re-authorizations after a 403 {@code insufficient_scope} per request. */
  public static final int MAX_STEP_UPS = 2;

  private final ServerAuth server;
  private final String tenant;

  OAuthSession(ServerAuth server, String tenant) {
    this.server = server;
    this.tenant = tenant;
  }

  /** @return the tenant, or {@code null} for the shared identity */
  public String tenant() {
    return tenant;
  }

  /** Loads stored tokens and refreshes them when they are about to expire. Never fails for a missing token. */
  public Future<Void> prepare() {
    return server.prepare(tenant);
  }

  /** @return {@code Bearer <access token>}, or {@code null} when there is none yet (a secret: never log it) */
  public String authorization() {
    return server.authorization(tenant);
  }

  /**
   * The server answered 401: refresh, or authorize (discovery from the challenge). Completes
   * when a new token is there; another request's flow in progress is joined.
   *
   * @param wwwAuthenticate the response's {@code WWW-Authenticate} values
   * @param used the {@code Authorization} value the refused request carried, or {@code null}
   */
  public Future<Void> unauthorized(List<String> wwwAuthenticate, String used) {
    return server.unauthorized(tenant, wwwAuthenticate, used);
  }

  /** @return whether a 403's {@code WWW-Authenticate} values say {@code insufficient_scope} */
  public static boolean isInsufficientScope(List<String> wwwAuthenticate) {
    return BearerChallenge.parse(wwwAuthenticate).insufficientScope();
  }

  /**
   * The server answered 403 {@code insufficient_scope}: authorize again for the scopes the
   * challenge names (with those granted so far).
   */
  public Future<Void> insufficientScope(List<String> wwwAuthenticate, String used) {
    return server.insufficientScope(tenant, wwwAuthenticate, used);
  }
}
