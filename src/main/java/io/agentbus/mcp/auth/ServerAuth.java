package io.agentbus.mcp.auth;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.UrlRedaction;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OAuth state of one configured MCP server: discovery results, and per tenant the tokens
 * and the one flow (refresh or authorization) in progress. Everything that reaches a log or
 * an error names the server and tenant, never a token, code, verifier or secret.
 */
final class ServerAuth {

  /** Margin before expiry at which a token is refreshed before use. */
  static final long REFRESH_MARGIN_MS = 60_000;
  private static final Logger LOG = LoggerFactory.getLogger(ServerAuth.class);

  /** One tenant's tokens and flow in progress. */
  private static final class Tenant {
    final String id;
    TokenSet tokens;
    Future<Void> loaded;
    Future<Void> flight;
    /** The authorization waiting for its callback while nobody could be asked (reused until it expires). */
    PendingAuthorization waiting;
    /** Why the tokens were dropped last (for the next authorization-required error), or {@code null}. */
    String dropped;

    Tenant(String id) {
      this.id = id;
    }
  }

  private final OAuthManager manager;
  private final String name;
  private final String who;
  private final URI uri;
  private final OAuthOptions options;
  private final String serverKey;
  private final AuthHttp http;
  private final Discovery discovery;
  private final Registration registration;
  private final TokenClient tokenClient;
  private final MachineGrants machine;
  private final CodeFlow codeFlow;
  private final Map<String, Future<AuthServer>> discovered = new ConcurrentHashMap<>();
  private final Map<String, Tenant> tenants = new ConcurrentHashMap<>();

  ServerAuth(OAuthManager manager, String name, URI uri, OAuthOptions options, long timeoutMs) {
    this.manager = manager;
    this.name = name;
    this.who = "server '" + name + "'";
    this.uri = uri;
    this.options = options;
    this.serverKey = name + " " + Urls.canonicalResource(uri);
    this.http = new AuthHttp(manager.vertx(), timeoutMs);
    this.discovery = new Discovery(http, who, uri, options);
    this.registration = new Registration(http, who, options, manager.registrations());
    this.tokenClient = new TokenClient(http, who);
    this.machine = new MachineGrants(manager, http, tokenClient, options);
    this.codeFlow = new CodeFlow(tokenClient, options);
  }

  String name() {
    return name;
  }

  URI uri() {
    return uri;
  }

  OAuthOptions options() {
    return options;
  }

  private Tenant tenant(String tenant) {
    return tenants.computeIfAbsent(TokenStore.key(tenant, ""), k -> new Tenant(tenant));
  }

  private String whom(String tenant) {
    return who + (tenant == null ? "" : " (tenant '" + tenant + "')");
  }

  /**
   * Loads stored tokens (once, or again while there are none: another process may have stored
   * some since), and refreshes (or, for client credentials, renews) them when about to expire,
   * unless another process already stored newer ones.
   */
  Future<Void> prepare(String tenant) {
    Tenant t = tenant(tenant);
    return load(t).compose(v -> {
      TokenSet ts = expiring(t);
      return ts == null ? Future.succeededFuture() : adoptNewer(t, ts).compose(adopted -> renew(t));
    });
  }

  /** @return the tenant's tokens when they are about to expire, else {@code null} */
  private static TokenSet expiring(Tenant t) {
    TokenSet ts;
    synchronized (t) {
      ts = t.tokens;
    }
    return ts != null && ts.expiresWithin(System.currentTimeMillis(), REFRESH_MARGIN_MS) ? ts : null;
  }

  /**
   * Takes the stored tokens when they are not {@code mine}: a command-line run, another node or
   * another process refreshed or authorized since they were read (with a rotating refresh token,
   * {@code mine} may no longer refresh). A store that fails changes nothing.
   *
   * @return whether other tokens were taken
   */
  private Future<Boolean> adoptNewer(Tenant t, TokenSet mine) {
    return manager.store().get(t.id, serverKey).map(stored -> {
      if (stored == null || mine != null && stored.accessToken().equals(mine.accessToken())) {
        return false;
      }
      synchronized (t) {
        t.tokens = stored;
        t.dropped = null;
      }
      LOG.debug("[{}] took the tokens another process stored", whom(t.id));
      return true;
    }).otherwise(false);
  }

  private Future<Void> renew(Tenant t) {
    TokenSet ts = expiring(t);
    if (ts == null) {
      return Future.succeededFuture();
    }
    if (ts.refreshToken() != null) {
      return flight(t, () -> refresh(t, ts, null)).otherwiseEmpty();
    }
    if (options.getGrant() != OAuthOptions.Grant.AUTHORIZATION_CODE) {
      // nobody needs to be asked: get a new token instead
      return flight(t, () -> authorize(t, BearerChallenge.NONE, false, null));
    }
    return Future.succeededFuture();
  }

  private Future<Void> load(Tenant t) {
    synchronized (t) {
      if (t.loaded == null || t.loaded.failed() || t.loaded.isComplete() && t.tokens == null) {
        t.loaded = manager.store().get(t.id, serverKey).map(ts -> {
          synchronized (t) {
            if (t.tokens == null) {
              t.tokens = ts;
            }
          }
          return (Void) null;
        }).recover(err -> Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, whom(t.id)
          + ": the token store failed: " + err.getMessage())));
      }
      return t.loaded;
    }
  }

  /** @return {@code Bearer <token>} for the tenant, or {@code null} when it has none */
  String authorization(String tenant) {
    Tenant t = tenant(tenant);
    synchronized (t) {
      return t.tokens == null ? null : "Bearer " + t.tokens.accessToken();
    }
  }

  /** The server answered 401 to a request sent with {@code used} (may be {@code null}). */
  Future<Void> unauthorized(String tenant, List<String> wwwAuthenticate, String used) {
    Tenant t = tenant(tenant);
    BearerChallenge ch = BearerChallenge.parse(wwwAuthenticate);
    return load(t).compose(v -> flight(t, () -> {
      TokenSet ts;
      synchronized (t) {
        ts = t.tokens;
      }
      if (ts != null && !("Bearer " + ts.accessToken()).equals(used)) {
        return Future.succeededFuture();
      }
      return adoptNewer(t, ts).compose(adopted -> {
        if (adopted) {
          return Future.succeededFuture();
        }
        if (ts != null && ts.refreshToken() != null && options.getGrant() == OAuthOptions.Grant.AUTHORIZATION_CODE) {
          return refresh(t, ts, ch).recover(err -> authorize(t, ch, false, err.getMessage()));
        }
        return authorize(t, ch, false, null);
      });
    }));
  }

  /** The server answered 403 {@code insufficient_scope}: authorize again with the scopes it names. */
  Future<Void> insufficientScope(String tenant, List<String> wwwAuthenticate, String used) {
    Tenant t = tenant(tenant);
    BearerChallenge ch = BearerChallenge.parse(wwwAuthenticate);
    return flight(t, () -> {
      String now = authorization(tenant);
      if (now != null && !now.equals(used)) {
        return Future.succeededFuture();
      }
      return authorize(t, ch, true, null);
    });
  }

  /** Runs {@code flow} unless one runs for the tenant already, in which case its outcome is shared. */
  private Future<Void> flight(Tenant t, Supplier<Future<Void>> flow) {
    synchronized (t) {
      if (t.flight != null && !t.flight.isComplete()) {
        return t.flight;
      }
      Future<Void> f = flow.get();
      t.flight = f;
      return f;
    }
  }

  private Future<AuthServer> discover(BearerChallenge ch) {
    String key = ch.resourceMetadata() == null ? "" : ch.resourceMetadata();
    Future<AuthServer> known = discovered.get(key);
    if (known != null && !known.failed()) {
      return known;
    }
    Future<AuthServer> f = discovery.discover(ch);
    discovered.put(key, f);
    return f;
  }

  /**
   * Refreshes the tenant's tokens at the authorization server that issued them.
   *
   * @param ch the 401's challenge, or {@code null} before use (then a server whose metadata is
   *     found only through a challenge is not refreshed, and its 401 will be)
   */
  private Future<Void> refresh(Tenant t, TokenSet ts, BearerChallenge ch) {
    return authServerFor(ts, ch).compose(as -> {
      if (!as.issuer().equals(ts.issuer())) {
        if (ch == null) {
          return Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, whom(t.id)
            + ": the authorization server of the stored tokens is not known yet"));
        }
        return forgetTokens(t).compose(v -> Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED, whom(t.id)
          + ": the stored tokens come from another authorization server; re-authorization needed")));
      }
      MultiMap form = MultiMap.caseInsensitiveMultiMap()
        .set("grant_type", "refresh_token")
        .set("refresh_token", ts.refreshToken())
        .set("resource", ts.resource());
      return tokenClient.request(as, ts.client(), form, ts.scopes(), List.of(ts.refreshToken(), ts.accessToken()), options)
        .map(fresh -> fresh.refreshToken() != null ? fresh : new TokenSet(fresh.accessToken(), ts.refreshToken(),
          fresh.expiresAtMs(), fresh.scopes(), fresh.issuer(), fresh.resource(), fresh.client()))
        .compose(fresh -> save(t, fresh))
        .onSuccess(v -> LOG.info("[{}] access token refreshed", whom(t.id)))
        .recover(err -> adoptNewer(t, ts).compose(adopted -> adopted ? Future.succeededFuture() : Future.failedFuture(err)))
        .recover(err -> {
          String why = TokenClient.invalidGrant(err)
            ? "the refresh token was rejected (expired or revoked): re-authorization needed"
            : "refreshing the access token failed: " + err.getMessage();
          synchronized (t) {
            t.dropped = why;
          }
          return forgetTokens(t).compose(v -> Future.failedFuture(new McpException(Kind.AUTHORIZATION_FAILED,
            whom(t.id) + ": " + why)));
        });
    });
  }

  /** The discovered authorization server that issued {@code ts}, else what discovery finds now. */
  private Future<AuthServer> authServerFor(TokenSet ts, BearerChallenge ch) {
    for (Future<AuthServer> f : discovered.values()) {
      if (f.succeeded() && f.result().issuer().equals(ts.issuer())) {
        return f;
      }
    }
    return discover(ch != null ? ch : BearerChallenge.NONE);
  }

  private Future<Void> forgetTokens(Tenant t) {
    synchronized (t) {
      t.tokens = null;
    }
    return manager.store().remove(t.id, serverKey).otherwiseEmpty();
  }

  Future<Void> forget(String tenant) {
    return forgetTokens(tenant(tenant));
  }

  private Future<Void> save(Tenant t, TokenSet ts) {
    synchronized (t) {
      t.tokens = ts;
      t.dropped = null;
    }
    return manager.store().put(t.id, serverKey, ts).recover(err -> {
      LOG.warn("[{}] could not store the tokens (kept in memory): {}", whom(t.id), err.getMessage());
      return Future.succeededFuture();
    });
  }

  /** Obtains new tokens: client credentials at once, or an authorization a person grants. */
  private Future<Void> authorize(Tenant t, BearerChallenge ch, boolean stepUp, String reason) {
    return discover(ch).compose(as -> {
      List<String> scopes = scopes(as, ch, t, stepUp);
      if (options.getGrant() == OAuthOptions.Grant.CLIENT_CREDENTIALS) {
        return machine.clientCredentials(as, scopes).compose(ts -> save(t, ts))
          .onSuccess(v -> LOG.info("[{}] obtained an access token (client credentials)", whom(t.id)));
      }
      if (options.getGrant() == OAuthOptions.Grant.IDENTITY_ASSERTION) {
        return machine.identityAssertion(name, t.id, whom(t.id), as, scopes).compose(ts -> save(t, ts))
          .onSuccess(v -> LOG.info("[{}] obtained an access token (identity assertion)", whom(t.id)));
      }
      String redirect = options.getRedirectUri() != null ? options.getRedirectUri() : manager.defaultRedirectUri();
      AuthorizationPrompt prompt = manager.prompt();
      if (prompt == null) {
        PendingAuthorization w;
        synchronized (t) {
          w = t.waiting;
        }
        // the same request again (a reconnect, another call): the same URL, still valid
        if (w != null && manager.isPending(w) && w.redirectUri().equals(redirect) && w.scopes().equals(scopes)
          && w.as().issuer().equals(as.issuer())) {
          return required(t, w, reason);
        }
      }
      return begin(t.id, as, scopes, redirect).compose(p -> {
        if (prompt == null) {
          synchronized (t) {
            t.waiting = p;
          }
          return required(t, p, reason);
        }
        LOG.info("[{}] asking for authorization at {}", whom(t.id), UrlRedaction.redact(p.url()));
        return Deadline.within(manager.vertx(), prompt.authorize(new AuthorizationRequest(name, t.id, p.url(),
            p.redirectUri())), OAuthManager.PENDING_TTL_MS, whom(t.id) + ": nobody completed the authorization in time")
          .compose(cb -> finish(p, cb, true));
      });
    });
  }

  /** Fails with AUTHORIZATION_REQUIRED, carrying the pending authorization's URL for whoever can show it. */
  private Future<Void> required(Tenant t, PendingAuthorization p, String reason) {
    String why;
    synchronized (t) {
      why = reason != null ? reason : t.dropped;
    }
    JsonObject data = new JsonObject().put("server", name).put("tenant", t.id).put("authorizationUrl", p.url())
      .put("redirectUri", p.redirectUri());
    return Future.failedFuture(new McpException(Kind.AUTHORIZATION_REQUIRED, whom(t.id) + " needs OAuth"
      + " authorization" + (why == null ? "" : " (" + why + ")") + ": a person must open the authorization"
      + " URL (in this error's data) and the callback must be completed", null, data, null));
  }

  private List<String> scopes(AuthServer as, BearerChallenge ch, Tenant t, boolean stepUp) {
    Set<String> s = new LinkedHashSet<>();
    if (!ch.scopes().isEmpty()) {
      TokenSet ts;
      synchronized (t) {
        ts = t.tokens;
      }
      if (stepUp && ts != null) {
        s.addAll(ts.scopes());
      }
      s.addAll(ch.scopes());
    } else if (!options.getScopes().isEmpty()) {
      s.addAll(options.getScopes());
    } else {
      s.addAll(as.resourceScopes());
    }
    if (options.getGrant() == OAuthOptions.Grant.AUTHORIZATION_CODE && as.scopesSupported().contains("offline_access")) {
      s.add("offline_access");
    } else {
      s.remove("offline_access");
    }
    return new ArrayList<>(s);
  }

  /** Discovers (when needed), identifies the client and registers a pending authorization; completes with it. */
  Future<PendingAuthorization> begin(String tenant, AuthServer known, List<String> scopes, String redirectUri) {
    Future<AuthServer> asF = known != null ? Future.succeededFuture(known) : discover(BearerChallenge.NONE);
    return asF.compose(as -> {
      List<String> sc = scopes != null ? scopes : scopes(as, BearerChallenge.NONE, tenant(tenant), false);
      return registration.identify(as, redirectUri).map(client -> {
        // the server's name leads, so that whoever receives the callback knows which server's it is
        String state = name + "." + Secrets.random(32);
        String verifier = Pkce.verifier();
        String url = CodeFlow.url(as, client, redirectUri, sc, state, verifier);
        return manager.addPending(new PendingAuthorization(this, tenant, state, verifier, redirectUri, as, client, sc,
          url, -1));
      });
    });
  }

  /**
   * Checks the callback against the pending authorization ({@code state}, {@code error},
   * {@code iss}) and exchanges the code for tokens.
   */
  Future<Void> finish(PendingAuthorization p, AuthorizationCallback cb, boolean checkState) {
    manager.removePending(p);
    String whom = whom(p.tenant());
    return codeFlow.exchange(p, cb, checkState, whom)
      .compose(ts -> save(tenant(p.tenant()), ts))
      .onSuccess(v -> LOG.info("[{}] authorized", whom));
  }

  Future<Void> close() {
    return http.close();
  }
}
