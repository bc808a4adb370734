package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.CallOptions;
import io.agentbus.mcp.McpClient;
import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpException.Kind;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.McpServerOptions.Transport;
import io.agentbus.mcp.transport.http.StreamableHttpTransport;
import io.agentbus.testing.FollowRedirectPrompt;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The OAuth client against a real (local) protected MCP server and authorization server on
 * two origins: the happy path, and each way the flow can be subverted or go stale. Every
 * failure is a clear error, no token or code reaches a log, an error message or a server
 * that should not see it.
 */
@ExtendWith(VertxExtension.class)
class OAuthClientTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  private static McpServerOptions options(OAuthTestServers s, OAuthOptions oauth) {
    return new McpServerOptions().setName("protected").setUrl(s.mcpUrl()).setTransport(Transport.HTTP)
      .setOauth(oauth).setConnectTimeoutMs(5_000).setTimeoutMs(5_000);
  }

  private static OAuthOptions oauth() {
    return new OAuthOptions().setRedirectUri("http://localhost:9999/oauth/callback");
  }

  /** Connects, calls the tool, closes. */
  private static Future<Void> connectAndCall(Vertx vertx, McpServerOptions o) {
    McpClient client = McpClient.create(vertx, o);
    return client.connect().compose(init -> client.callTool("echo", new JsonObject(), new CallOptions()))
      .<Void>mapEmpty().eventually(client::close);
  }

  /** Connects and expects a failure; completes with it. */
  private static Future<McpException> connectFailure(Vertx vertx, McpServerOptions o) {
    McpClient client = McpClient.create(vertx, o);
    return client.connect().<McpException>transform(ar -> ar.succeeded()
        ? Future.failedFuture(new AssertionError("connected, but the authorization should have failed"))
        : Future.succeededFuture(assertInstanceOf(McpException.class, ar.cause(), () -> String.valueOf(ar.cause()))))
      .eventually(client::close);
  }

  /** Every secret the servers handed out or used. */
  private static List<String> secrets(OAuthTestServers s) {
    List<String> all = new ArrayList<>(s.validTokens);
    all.addAll(s.validRefreshTokens);
    all.add("the-code");
    return all;
  }

  private void assertNothingLeaked(OAuthTestServers s, String... texts) {
    for (String secret : secrets(s)) {
      // the messages name where, never the secret itself
      assertFalse(logs.contains(secret), () -> "a secret was logged (" + logs.count(secret) + " lines)");
      for (String t : texts) {
        assertFalse(t.contains(secret), "a secret is in an error message");
      }
    }
    for (String token : s.validTokens) {
      assertTrue(s.seen.stream().filter(x -> x.server().equals("as")).noneMatch(x -> x.carries(token)),
        "an access token reached the authorization server");
    }
  }

  @Test
  void authorizesAndSendsTheTokenOnlyToTheMcpServer(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectAndCall(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertEquals(1, s.validTokens.size());
        String token = s.validTokens.iterator().next();
        assertTrue(s.seen.stream().anyMatch(x -> x.server().equals("mcp") && ("Bearer " + token).equals(x.authorization())));
        assertEquals(1, s.count("as", "/authorize"));
        assertEquals(1, s.count("as", "/register"));
        assertTrue(logs.contains("authorized"), "the authorization is logged");
        assertNothingLeaked(s);
        ctx.completeNow();
      })));
  }

  @Test
  void anIssuerMismatchInTheMetadataStopsBeforeAnyAuthorization(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.issuer = "http://127.0.0.1:1/someone-else";
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("issuer does not match"), e.getMessage());
        assertEquals(0, s.count("as", "/authorize"));
        assertEquals(0, s.count("as", "/token"));
        assertEquals(0, s.count("as", "/register"));
        ctx.completeNow();
      })));
  }

  @Test
  void aResourceThatIsNotTheServerStopsBeforeTheAuthorizationServerIsContacted(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.prmResource = "https://evil.example.com/mcp";
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("does not match the server URL"), e.getMessage());
        assertEquals(0, s.seen.stream().filter(x -> x.server().equals("as")).count());
        ctx.completeNow();
      })));
  }

  @Test
  void anAuthorizationServerOutsideTheAllowedOnesIsNeverContacted(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    OAuthOptions o = oauth().setAuthorizationServers(List.of("https://login.example.com"));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, o))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("is not one of this server's 'oauth.authorizationServers'"), e.getMessage());
        assertEquals(0, s.seen.stream().filter(x -> x.server().equals("as")).count());
        ctx.completeNow();
      })));
  }

  @Test
  void aForgedStateIsRefused(Vertx vertx, VertxTestContext ctx) {
    stateOrIssRefused(vertx, ctx, s -> s.redirectState = "forged-state", "state does not match");
  }

  @Test
  void aMissingStateIsRefused(Vertx vertx, VertxTestContext ctx) {
    stateOrIssRefused(vertx, ctx, s -> s.redirectState = "", "state is missing");
  }

  @Test
  void aWrongIssIsRefused(Vertx vertx, VertxTestContext ctx) {
    stateOrIssRefused(vertx, ctx, s -> s.redirectIss = "http://127.0.0.1:1", "iss does not name the authorization server");
  }

  @Test
  void aMissingIssIsRefusedWhenTheServerPromisesIt(Vertx vertx, VertxTestContext ctx) {
    stateOrIssRefused(vertx, ctx, s -> s.redirectIss = "", "iss is missing");
  }

  private void stateOrIssRefused(Vertx vertx, VertxTestContext ctx, Consumer<OAuthTestServers> knob,
                                 String expected) {
    OAuthTestServers s = new OAuthTestServers();
    knob.accept(s);
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertEquals(1, s.count("as", "/authorize"));
        assertEquals(0, s.count("as", "/token"), "the code must not be exchanged");
        assertFalse(e.getMessage().contains("the-code"));
        ctx.completeNow();
      })));
  }

  @Test
  void withoutAPromptItFailsAtOnceWithTheUrlAndTheCallbackCompletesIt(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager manager = OAuthManager.install(vertx, new InMemoryTokenStore(), null);
    FollowRedirectPrompt person = new FollowRedirectPrompt(vertx);
    long started = System.nanoTime();
    s.start(vertx)
      .compose(v -> connectFailure(vertx, options(s, oauth())))
      .compose(e -> {
        ctx.verify(() -> {
          assertTrue(System.nanoTime() - started < 4_000_000_000L, "must not wait for a person");
          assertEquals(Kind.AUTHORIZATION_REQUIRED, e.kind(), e.getMessage());
          assertFalse(e.getMessage().contains("state="), e.getMessage());
          JsonObject data = (JsonObject) e.data();
          assertEquals("protected", data.getString("server"));
          assertTrue(data.getString("authorizationUrl").startsWith(s.asUrl() + "/authorize?"), data.encode());
        });
        String url = ((JsonObject) e.data()).getString("authorizationUrl");
        return person.authorize(new AuthorizationRequest("protected", null, url, null));
      })
      .compose(callback -> manager.complete(callback)
        .compose(done -> manager.complete(callback).transform(again -> {
          ctx.verify(() -> {
            assertTrue(again.failed(), "a callback must complete only once");
            assertTrue(again.cause().getMessage().contains("belongs to no pending authorization"));
          });
          return Future.succeededFuture(done);
        })))
      .compose(done -> connectAndCall(vertx, options(s, oauth())))
      .eventually(s::close)
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertEquals(1, s.validTokens.size());
        assertNothingLeaked(s);
        ctx.completeNow();
      })));
  }

  @Test
  void theHttpLayerApiGivesAnAuthorizationUrlForATenant(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    TokenStore store = new InMemoryTokenStore();
    OAuthManager manager = OAuthManager.install(vertx, store, null);
    FollowRedirectPrompt person = new FollowRedirectPrompt(vertx);
    s.start(vertx)
      .compose(v -> {
        manager.session(options(s, oauth()), "acme");
        return manager.authorizationUrl("protected", "acme", "http://localhost:7777/oauth/callback");
      })
      .compose(url -> {
        ctx.verify(() -> assertTrue(url.contains("redirect_uri=http%3A%2F%2Flocalhost%3A7777%2Foauth%2Fcallback"), url));
        return person.authorize(new AuthorizationRequest("protected", "acme", url, null));
      })
      .compose(manager::complete)
      .compose(done -> Future.all(store.get("acme", "protected " + s.mcpUrl()), store.get(null, "protected " + s.mcpUrl())))
      .eventually(s::close)
      .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
        TokenSet acme = both.resultAt(0);
        assertTrue(acme != null && s.validTokens.contains(acme.accessToken()));
        assertTrue(both.resultAt(1) == null, "the shared identity has no tokens");
        ctx.completeNow();
      })));
  }

  @Test
  void askingAgainAndAgainForAnAuthorizationUrlKeepsOnlyTheNewestWaiting(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager manager = OAuthManager.install(vertx, new InMemoryTokenStore(), null);
    FollowRedirectPrompt person = new FollowRedirectPrompt(vertx);
    String redirect = "http://localhost:7777/oauth/callback";
    List<String> urls = new java.util.ArrayList<>();
    s.start(vertx)
      .compose(v -> {
        manager.session(options(s, oauth()), "acme");
        manager.session(options(s, oauth()), "globex");
        Future<Void> chain = Future.succeededFuture();
        for (int i = 0; i < 200; i++) {
          chain = chain.compose(x -> manager.authorizationUrl("protected", "acme", redirect).map(url -> {
            urls.add(url);
            return null;
          }));
        }
        return chain.compose(x -> manager.authorizationUrl("protected", "globex", redirect));
      })
      .compose(globexUrl -> {
        ctx.verify(() -> assertEquals(2, manager.pendingCount(), "one waiting per tenant, not one per request"));
        // an older URL of acme's is no longer valid; the newest one is
        return person.authorize(new AuthorizationRequest("protected", "acme", urls.get(0), null))
          .compose(old -> manager.complete(old).transform(ar -> {
            ctx.verify(() -> {
              assertTrue(ar.failed(), "a replaced authorization cannot be completed");
              assertTrue(ar.cause().getMessage().contains("no pending authorization"), ar.cause().getMessage());
            });
            return person.authorize(new AuthorizationRequest("protected", "acme", urls.get(urls.size() - 1), null));
          }))
          .compose(manager::complete);
      })
      .eventually(s::close)
      .onComplete(ctx.succeeding(done -> ctx.verify(() -> {
        assertEquals("acme", done.tenant());
        assertEquals(1, manager.pendingCount(), "globex's still waits");
        ctx.completeNow();
      })));
  }

  @Test
  void aRevokedRefreshTokenNeedsReauthorization(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.expiresIn = 1;
    TokenStore store = new InMemoryTokenStore();
    OAuthManager.install(vertx, store, new FollowRedirectPrompt(vertx));
    s.start(vertx)
      .compose(v -> connectAndCall(vertx, options(s, oauth())))
      .compose(v -> {
        s.refreshRevoked = true;
        // a restarted process: the same store, and nobody to ask
        OAuthManager.install(vertx, store, null);
        return connectFailure(vertx, options(s, oauth()));
      })
      .eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_REQUIRED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("the refresh token was rejected"), e.getMessage());
        assertTrue(((JsonObject) e.data()).getString("authorizationUrl").startsWith(s.asUrl()));
        assertTrue(s.seen.stream().anyMatch(x -> x.path().equals("/token") && x.body().contains("grant_type=refresh_token")));
        assertNothingLeaked(s, e.getMessage());
        ctx.completeNow();
      })));
  }

  @Test
  void aTokenAboutToExpireIsRefreshedBeforeUse(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.expiresIn = 1;
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectAndCall(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertEquals(1, s.count("as", "/authorize"));
        assertTrue(s.seen.stream().filter(x -> x.path().equals("/token") && x.body().contains("grant_type=refresh_token"))
          .count() >= 1, "refreshed before use");
        assertTrue(logs.contains("access token refreshed"));
        assertNothingLeaked(s);
        ctx.completeNow();
      })));
  }

  @Test
  void aServerThatRefusesEveryNewTokenIsGivenUpOnAfterOneAuthorization(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.acceptTokens = false;
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("still answers 401"), e.getMessage());
        assertEquals(1, s.count("as", "/authorize"));
        assertNothingLeaked(s, e.getMessage());
        ctx.completeNow();
      })));
  }

  @Test
  void aReconnectWithoutAPromptGetsTheSameAuthorizationUrl(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager.install(vertx, new InMemoryTokenStore(), null);
    s.start(vertx)
      .compose(v -> connectFailure(vertx, options(s, oauth())))
      .compose(first -> connectFailure(vertx, options(s, oauth())).map(second -> List.of(first, second)))
      .eventually(s::close)
      .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
        String a = ((JsonObject) both.get(0).data()).getString("authorizationUrl");
        String b = ((JsonObject) both.get(1).data()).getString("authorizationUrl");
        assertEquals(a, b, "one pending authorization per (server, tenant) while it is valid");
        assertEquals(1, s.count("as", "/register"));
        ctx.completeNow();
      })));
  }

  @Test
  void theOAuthTokenReplacesAConfiguredAuthorizationHeader(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx)
      .compose(v -> connectAndCall(vertx, options(s, oauth()).setHeaders(Map.of("Authorization", "Bearer static"))))
      .eventually(s::close)
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        String token = s.validTokens.iterator().next();
        assertTrue(s.seen.stream().filter(x -> x.server().equals("mcp") && x.body().contains("tools/call"))
          .allMatch(x -> ("Bearer " + token).equals(x.authorization())), "the calls carry the OAuth token alone");
        assertTrue(logs.contains("the OAuth access token replaces the header"));
        ctx.completeNow();
      })));
  }

  @Test
  void afterARestartA401RefreshesAtTheServerTheChallengeNames(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.prmPath = "/custom/metadata.json";
    s.expiresIn = 1;
    TokenStore store = new InMemoryTokenStore();
    OAuthManager.install(vertx, store, new FollowRedirectPrompt(vertx));
    s.start(vertx)
      .compose(v -> connectAndCall(vertx, options(s, oauth())))
      .compose(v -> {
        // a restarted process with nobody to ask; the server no longer takes the old access token
        OAuthManager.install(vertx, store, null);
        s.validTokens.clear();
        return connectAndCall(vertx, options(s, oauth()));
      })
      .eventually(s::close)
      .onComplete(ctx.succeeding(v -> ctx.verify(() -> {
        assertEquals(1, s.count("as", "/authorize"), "refreshed, not authorized again");
        assertTrue(s.seen.stream().anyMatch(x -> x.path().equals("/token") && x.body().contains("grant_type=refresh_token")));
        assertNothingLeaked(s);
        ctx.completeNow();
      })));
  }

  @Test
  void anOversizedMetadataAnswerIsRefusedWhileItIsRead(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.hugeMetadata = true;
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("larger than"), e.getMessage());
        ctx.completeNow();
      })));
  }

  @Test
  void aSilentAuthorizationServerFailsWithinTheDeadline(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.stallMetadata = true;
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectFailure(vertx, options(s, oauth()).setTimeoutMs(500))).eventually(s::close)
      .onComplete(ctx.succeeding(e -> ctx.verify(() -> {
        assertEquals(Kind.AUTHORIZATION_FAILED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("no answer within 500 ms"), e.getMessage());
        ctx.completeNow();
      })));
  }

  @Test
  void anErrorBodyThatEchoesTheTokenDoesNotPutItInTheError(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    s.echoTokenOnCall = true;
    OAuthManager.install(vertx, new InMemoryTokenStore(), new FollowRedirectPrompt(vertx));
    s.start(vertx).compose(v -> connectAndCall(vertx, options(s, oauth())).transform(ar -> ar.failed()
        ? Future.succeededFuture(ar.cause()) : Future.<Throwable>failedFuture("the call should have failed")))
      .eventually(s::close)
      .onComplete(ctx.succeeding(err -> ctx.verify(() -> {
        assertTrue(err.getMessage().contains("HTTP 500"), err.getMessage());
        assertTrue(err.getMessage().contains("cannot serve *** today"), "the echoed token is blanked out");
        assertNothingLeaked(s, err.getMessage());
        ctx.completeNow();
      })));
  }

  /** Connects as {@code tenant} (a connection scope would do the same), calls the tool, closes. */
  private static Future<Void> connectAndCallAs(Vertx vertx, OAuthManager manager, McpServerOptions o, String tenant) {
    Context context = vertx.getOrCreateContext();
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> {
      McpClient client = McpClient.create(vertx, o, new StreamableHttpTransport(vertx, context,
        o, manager.session(o, tenant)));
      client.connect().compose(init -> client.callTool("echo", new JsonObject(), new CallOptions()))
        .<Void>mapEmpty().eventually(client::close).onComplete(done);
    });
    return done.future();
  }

  @Test
  void eachTenantAuthorizesForItselfAndSendsOnlyItsOwnToken(Vertx vertx, VertxTestContext ctx) {
    OAuthTestServers s = new OAuthTestServers();
    TokenStore store = new InMemoryTokenStore();
    OAuthManager manager = OAuthManager.install(vertx, store, new FollowRedirectPrompt(vertx));
    s.start(vertx)
      .compose(v -> connectAndCallAs(vertx, manager, options(s, oauth()), "tenant-a"))
      .compose(v -> connectAndCallAs(vertx, manager, options(s, oauth()), "tenant-b"))
      .compose(v -> Future.all(store.get("tenant-a", "protected " + s.mcpUrl()), store.get("tenant-b", "protected " + s.mcpUrl())))
      .eventually(s::close)
      .onComplete(ctx.succeeding(both -> ctx.verify(() -> {
        TokenSet a = both.resultAt(0);
        TokenSet b = both.resultAt(1);
        assertEquals(2, s.count("as", "/authorize"), "tenant B is not served tenant A's token");
        assertFalse(a.accessToken().equals(b.accessToken()));
        long callsWithA = s.seen.stream().filter(x -> x.server().equals("mcp") && x.body().contains("tools/call")
          && ("Bearer " + a.accessToken()).equals(x.authorization())).count();
        long callsWithB = s.seen.stream().filter(x -> x.server().equals("mcp") && x.body().contains("tools/call")
          && ("Bearer " + b.accessToken()).equals(x.authorization())).count();
        assertEquals(1, callsWithA);
        assertEquals(1, callsWithB);
        assertNothingLeaked(s);
        ctx.completeNow();
      })));
  }

  @Test
  void aCallbackWithoutOrWithAnUnknownStateIsRefused(Vertx vertx, VertxTestContext ctx) {
    OAuthManager manager = OAuthManager.install(vertx, new InMemoryTokenStore(), null);
    manager.complete(new AuthorizationCallback("a-code", null, null, null, null)).transform(missing -> {
      ctx.verify(() -> {
        assertTrue(missing.failed());
        assertTrue(missing.cause().getMessage().contains("state is missing"), missing.cause().getMessage());
        assertFalse(missing.cause().getMessage().contains("a-code"));
      });
      return manager.complete(new AuthorizationCallback("a-code", "made-up-state", null, null, null));
    }).onComplete(ctx.failing(unknown -> ctx.verify(() -> {
      assertEquals(Kind.AUTHORIZATION_FAILED, ((McpException) unknown).kind());
      assertTrue(unknown.getMessage().contains("belongs to no pending authorization"), unknown.getMessage());
      assertFalse(unknown.getMessage().contains("made-up-state"));
      ctx.completeNow();
    })));
  }
}
