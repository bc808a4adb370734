package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.LocalMap;
import io.vertx.core.shareddata.Shareable;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The OAuth client of one Vert.x instance: the {@link TokenStore}, the
 * {@link AuthorizationPrompt} (if a person can be asked in-line), the registered servers and
 * the authorizations waiting for their callback.
 *
 * <p>For an HTTP layer: {@link #authorizationUrl} gives the URL to send a person to for
 * (server, tenant) with its own redirect URI; {@link #complete} finishes with the callback's
 * query (checked against the pending request by {@code state}); a connection that needed
 * authorization while nobody could be asked failed with an {@code McpException} of kind
 * {@code AUTHORIZATION_REQUIRED} whose {@code data()} holds {@code server}, {@code tenant},
 * {@code authorizationUrl} and {@code redirectUri} (that pending request can be completed by
 * {@link #complete} as well).
 *
 * <p>Without {@link #install} or {@link #installDefault} (which {@code serve} calls with its
 * conversation store's table), {@link #of} builds the default: no prompt, and the store from
 * the environment ({@link TokenStores#fromEnvironment(Vertx)}: {@value EncryptedFileTokenStore#KEY_ENV}
 * set: an encrypted file at {@code AGENTBUS_TOKEN_FILE}, default
 * {@value EncryptedFileTokenStore#DEFAULT_PATH}; not set: memory only, with one warning).
 */
public final class OAuthManager implements Shareable {

  /** How long an authorization request waits for its callback. */
  public static final long PENDING_TTL_MS = 10 * 60_000;
  /** The redirect URI used when neither the server's options nor {@link #defaultRedirectUri(String)} give one. */
  public static final String DEFAULT_REDIRECT_URI = "http://localhost:8080/oauth/callback";
  /** The local map (of each Vert.x instance) that holds its manager: it goes when the instance closes. */
  private static final String MAP = "agentbus.oauth";
  private static final String KEY = "manager";

  private final Vertx vertx;
  private final TokenStore store;
  private final AuthorizationPrompt prompt;
  private final Map<String, ServerAuth> servers = new ConcurrentHashMap<>();
  private final Map<String, PendingAuthorization> pending = new ConcurrentHashMap<>();
  /** (server, tenant, redirect URI) → the state of its newest pending authorization. */
  private final Map<String, String> newest = new ConcurrentHashMap<>();
  private final Map<String, ClientIdentity> registrations = Registration.cache();
  private volatile String defaultRedirectUri = DEFAULT_REDIRECT_URI;
  private volatile IdentityTokenSource identityTokens;
  /** Set up by {@link #install}: {@link #installDefault} keeps it. */
  private volatile boolean installed;

  private OAuthManager(Vertx vertx, TokenStore store, AuthorizationPrompt prompt) {
    this.vertx = vertx;
    this.store = Objects.requireNonNull(store, "'store' cannot be null");
    this.prompt = prompt;
  }

  /** @return the manager of {@code vertx}, created with the defaults on first use */
  public static OAuthManager of(Vertx vertx) {
    LocalMap<String, OAuthManager> map = vertx.sharedData().getLocalMap(MAP);
    OAuthManager m = map.get(KEY);
    if (m != null) {
      return m;
    }
    OAuthManager created = new OAuthManager(vertx, storeFromEnvironment(vertx), null);
    OAuthManager raced = map.putIfAbsent(KEY, created);
    return raced != null ? raced : created;
  }

  /**
   * Sets up the manager of {@code vertx} (before any server connects).
   *
   * @param prompt asked when a person must authorize; {@code null}: fail at once with {@code AUTHORIZATION_REQUIRED}
   */
  public static OAuthManager install(Vertx vertx, TokenStore store, AuthorizationPrompt prompt) {
    OAuthManager m = new OAuthManager(vertx, store, prompt);
    m.installed = true;
    vertx.sharedData().<String, OAuthManager>getLocalMap(MAP).put(KEY, m);
    return m;
  }

  /**
   * The store the environment asks for, the one {@link #of} uses (see the class comment): a
   * process that {@link #install}s its own prompt (the command line) keeps its tokens where
   * {@code serve} finds them.
   */
  public static TokenStore storeFromEnvironment(Vertx vertx) {
    return TokenStores.fromEnvironment(vertx);
  }

  /**
   * Sets up the manager of {@code vertx} with {@code store} and no prompt, unless {@link #install}
   * set one up already (that one is kept): what {@code serve} does with the token store of its
   * conversation store ({@link TokenStores#fromEnvironment(Vertx, io.agentbus.store.ConversationStore)}),
   * before any server connects. A default made by {@link #of} is replaced (its redirect URI and
   * identity token source are kept).
   *
   * @return the manager now in effect
   */
  public static OAuthManager installDefault(Vertx vertx, TokenStore store) {
    LocalMap<String, OAuthManager> map = vertx.sharedData().getLocalMap(MAP);
    OAuthManager m = map.get(KEY);
    if (m != null && m.installed) {
      return m;
    }
    OAuthManager created = new OAuthManager(vertx, store, null);
    if (m != null) {
      // what an HTTP layer set on the lazy default stays
      created.defaultRedirectUri = m.defaultRedirectUri;
      created.identityTokens = m.identityTokens;
    }
    map.put(KEY, created);
    return created;
  }

  /** Sets the redirect URI for servers whose options name none (the HTTP layer's callback URL). */
  public OAuthManager defaultRedirectUri(String uri) {
    this.defaultRedirectUri = Objects.requireNonNull(uri, "'uri' cannot be null");
    return this;
  }

  /** Sets where the {@code identity_assertion} grant gets the person's ID token. */
  public OAuthManager identityTokens(IdentityTokenSource source) {
    this.identityTokens = source;
    return this;
  }

  /**
   * The OAuth session of a connection to an HTTP server with {@code oauth} options.
   *
   * @param tenant {@code null} for the shared identity
   */
  public OAuthSession session(McpServerOptions options, String tenant) {
    OAuthOptions o = Objects.requireNonNull(options.getOauth(), "server has no 'oauth' options");
    URI uri = URI.create(options.getUrl());
    ServerAuth sa = servers.compute(options.getName(), (k, old) -> {
      if (old != null && old.uri().equals(uri) && old.options().toJson().equals(o.toJson())) {
        return old;
      }
      if (old != null) {
        old.close();
      }
      return new ServerAuth(this, options.getName(), uri, o, Math.min(options.getTimeoutMs(), 30_000));
    });
    return new OAuthSession(sa, tenant);
  }

  /**
   * Starts an authorization for (server, tenant) whose callback goes to {@code redirectUri};
   * completes with the URL to send the person to. The callback is then passed to
   * {@link #complete} within {@link #PENDING_TTL_MS}.
   *
   * @param redirectUri {@code null} for the server's {@code oauth.redirectUri} or the default
   */
  public Future<String> authorizationUrl(String server, String tenant, String redirectUri) {
    ServerAuth sa = servers.get(server);
    if (sa == null) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, "server '" + server
        + "' is not an HTTP server with \"oauth\" options (or has not started)"));
    }
    String redirect = redirectUri != null ? redirectUri
      : sa.options().getRedirectUri() != null ? sa.options().getRedirectUri() : defaultRedirectUri;
    return sa.begin(tenant, null, null, redirect).map(PendingAuthorization::url);
  }

  /**
   * Completes the authorization the callback belongs to (found by its {@code state}): checks
   * {@code error} and {@code iss}, exchanges the code and stores the tokens for that
   * (server, tenant). Fails for an unknown, used or expired state.
   *
   * @return the server and tenant now authorized ({@code authorizationUrl} is {@code null})
   */
  public Future<AuthorizationRequest> complete(AuthorizationCallback callback) {
    PendingAuthorization p = callback.state() == null ? null : pending.get(callback.state());
    if (p == null) {
      return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, "the authorization callback's state "
        + (callback.state() == null ? "is missing" : "belongs to no pending authorization (unknown, used or expired)")));
    }
    return p.server().finish(p, callback, true)
      .map(v -> new AuthorizationRequest(p.server().name(), p.tenant(), null, p.redirectUri()));
  }

  /**
   * @return the MCP server an authorization callback's {@code state} belongs to (states start
   *     with the server's name), or {@code null} for a state of another shape
   */
  public static String serverOf(String state) {
    int dot = state == null ? -1 : state.lastIndexOf('.');
    return dot <= 0 ? null : state.substring(0, dot);
  }

  /** Forgets the tokens of (server, tenant); the next request needs a new authorization. */
  public Future<Void> forget(String server, String tenant) {
    ServerAuth sa = servers.get(server);
    return sa == null ? Future.succeededFuture() : sa.forget(tenant);
  }

  /**
   * Registers an authorization waiting for its callback. Only the newest one per (server,
   * tenant, redirect URI) is kept: a caller asking again and again for a URL replaces its
   * previous one instead of piling up requests for {@link #PENDING_TTL_MS}.
   */
  PendingAuthorization addPending(PendingAuthorization p) {
    long timer = vertx.setTimer(PENDING_TTL_MS, id -> {
      pending.remove(p.state());
      newest.remove(newestKey(p), p.state());
    });
    PendingAuthorization withTimer = p.withTimer(timer);
    pending.put(p.state(), withTimer);
    String replaced = newest.put(newestKey(p), p.state());
    PendingAuthorization older = replaced == null ? null : pending.get(replaced);
    if (older != null) {
      removePending(older);
    }
    return withTimer;
  }

  private static String newestKey(PendingAuthorization p) {
    return p.server().name() + '\u0000' + (p.tenant() == null ? "" : "t:" + p.tenant()) + '\u0000' + p.redirectUri();
  }

  boolean isPending(PendingAuthorization p) {
    return pending.containsKey(p.state());
  }

  void removePending(PendingAuthorization p) {
    PendingAuthorization removed = pending.remove(p.state());
    if (removed != null) {
      newest.remove(newestKey(removed), removed.state());
      if (removed.timerId() >= 0) {
        vertx.cancelTimer(removed.timerId());
      }
    }
  }

  /** @return how many authorizations wait for their callback */
  int pendingCount() {
    return pending.size();
  }

  Vertx vertx() {
    return vertx;
  }

  TokenStore store() {
    return store;
  }

  IdentityTokenSource identityTokens() {
    return identityTokens;
  }

  AuthorizationPrompt prompt() {
    return prompt;
  }

  String defaultRedirectUri() {
    return defaultRedirectUri;
  }

  Map<String, ClientIdentity> registrations() {
    return registrations;
  }
}
