/**
 * The OAuth 2.1 client for HTTP MCP servers, as the MCP authorization spec (2025-11-25, with
 * the 2026-07-28 additions) describes it: protected-resource metadata (RFC 9728) and
 * authorization-server metadata (RFC 8414 / OpenID Connect discovery) discovery, client
 * identity (pre-registered, Client ID Metadata Document, dynamic registration as the
 * fallback), the authorization code grant with PKCE S256, {@code resource} (RFC 8707),
 * a checked {@code state} and {@code iss} (RFC 9207), refresh, step-up on
 * {@code insufficient_scope} and the client-credentials grant, with tokens kept per
 * (tenant, server) in a {@link io.agentbus.mcp.auth.TokenStore}.
 *
 * <p>Entry points: {@link io.agentbus.mcp.auth.OAuthManager} (one per Vert.x instance: the
 * store, the {@link io.agentbus.mcp.auth.AuthorizationPrompt}, and the public API for an
 * HTTP layer: the authorization URL for (server, tenant) and the completion with the
 * callback's query) and {@link io.agentbus.mcp.auth.OAuthSession} (what a transport uses:
 * the {@code Authorization} header, and what to do on 401 and 403).
 *
 * <p><b>Why not vertx-auth-oauth2.</b> Its {@code OAuth2Auth} is built around one
 * pre-configured provider and OpenID Connect discovery: it has no RFC 9728 protected-resource
 * discovery, no RFC 8414 path-insertion variants, no {@code resource} parameter on every
 * request, no RFC 9207 {@code iss} check, no Client ID Metadata Documents and no dynamic
 * registration, and its token requests would still have to be wrapped to keep secrets out of
 * its error messages. What remains for it to do is three form POSTs to a token endpoint,
 * which Vert.x's own HTTP client does in a few lines with full control over client
 * authentication ({@code client_secret_basic}, {@code client_secret_post}, {@code none},
 * {@code private_key_jwt}), deadlines, body limits (enforced while reading, which
 * {@code WebClient} does not offer) and error text. So this package uses the core
 * {@code HttpClient} directly and adds no dependency.
 *
 * <p>Dependencies go one way: {@code mcp.transport.http} uses this package; this package
 * uses only {@code io.agentbus.mcp} (errors, URL redaction), {@code io.agentbus.options} and
 * {@code io.agentbus.store} (the bottom of the graph: {@link io.agentbus.mcp.auth.DatabaseTokenStore}
 * keeps tokens in the conversation store's {@code oauth_tokens} table, which sees only sealed bytes;
 * the key and the encryption stay here).
 */
package io.agentbus.mcp.auth;
