package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.auth.ClientIdentity;
import io.agentbus.mcp.auth.DatabaseTokenStore;
import io.agentbus.mcp.auth.TokenSet;
import io.agentbus.mcp.auth.TokenStore;
import io.agentbus.store.StoreException.Kind;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * OAuth tokens in a durable conversation store: {@link DatabaseTokenStore} over the store's
 * {@link TokenTable}, against the real database. One subclass per database supplies the options
 * and raw access to the table (reading it, copying a row), behind the store's back.
 */
abstract class TokenTableContract {

  static final String GITHUB = "github https://mcp.example.com/mcp";
  static final String LINEAR = "linear https://mcp.linear.example/mcp";

  protected Vertx vertx;
  protected ConversationStore store;
  protected TokenStore tokens;
  protected byte[] key;
  private final List<ConversationStore> extra = new ArrayList<>();

  /** One stored row, as the database holds it. */
  record RawRow(String tenant, String serverKey, byte[] sealed) {
  }

  /** @return the options of a fresh, empty store for one test */
  protected abstract StoreOptions options() throws Exception;

  /** @return every row of {@code oauth_tokens}, read straight from the database */
  protected abstract List<RawRow> rawRows() throws Exception;

  /** @return every byte the database keeps on disk that a token could leak into, as Latin-1 text (empty when not reachable) */
  protected String rawFiles() throws Exception {
    return "";
  }

  /** Copies the sealed value of (fromTenant, serverKey) into a new row for (toTenant, serverKey), in SQL. */
  protected abstract void copyRow(String fromTenant, String toTenant, String serverKey) throws Exception;

  /** Cleanup after the stores and Vert.x are closed. */
  protected void afterStoreClosed() throws Exception {
  }

  static TokenSet tokens(String access) {
    return new TokenSet(access, "refresh-" + access, 0, List.of("read"), "https://as.example.com",
      "https://mcp.example.com/mcp", new ClientIdentity("client-1", "client-secret-" + access, "client_secret_basic"));
  }

  static byte[] newKey() {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    return k;
  }

  @BeforeEach
  void openStore() throws Exception {
    vertx = Vertx.vertx();
    store = await(ConversationStore.create(vertx, options()));
    key = newKey();
    tokens = new DatabaseTokenStore(store.tokenTable().orElseThrow(), key, store.describe());
  }

  @AfterEach
  void closeStore() throws Exception {
    try {
      for (ConversationStore s : extra) {
        s.close().await(10, TimeUnit.SECONDS);
      }
      store.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
      afterStoreClosed();
    }
  }

  /** @return a token store over a second store on the same database, as another process or node opens it */
  private TokenStore second(byte[] withKey) throws Exception {
    ConversationStore s = await(ConversationStore.create(vertx, options()));
    extra.add(s);
    return new DatabaseTokenStore(s.tokenTable().orElseThrow(), withKey, s.describe());
  }

  static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  static Throwable failure(Future<?> f) throws Exception {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("the operation succeeded");
  }

  @Test
  void tokensRoundTripPerTenantAndServerAndNeverCrossTenants() throws Exception {
    await(tokens.put("tenant-a", GITHUB, tokens("access-a-github")));
    await(tokens.put("tenant-b", GITHUB, tokens("access-b-github")));
    await(tokens.put(null, GITHUB, tokens("access-shared-github")));
    await(tokens.put("tenant-a", LINEAR, tokens("access-a-linear")));

    TokenSet a = await(tokens.get("tenant-a", GITHUB));
    assertEquals(tokens("access-a-github"), a);
    assertEquals("client-secret-access-a-github", a.client().clientSecret());
    assertEquals("access-b-github", await(tokens.get("tenant-b", GITHUB)).accessToken());
    assertEquals("access-shared-github", await(tokens.get(null, GITHUB)).accessToken());
    assertEquals("access-a-linear", await(tokens.get("tenant-a", LINEAR)).accessToken());
    assertNull(await(tokens.get("tenant-c", GITHUB)), "tenant C must not get anyone's tokens");
    assertNull(await(tokens.get("tenant-b", LINEAR)), "tenant B must not get tenant A's tokens");
    assertNull(await(tokens.get(null, LINEAR)), "the shared identity must not get tenant A's tokens");

    await(tokens.put("tenant-a", GITHUB, tokens("access-a-github-2")));
    assertEquals("access-a-github-2", await(tokens.get("tenant-a", GITHUB)).accessToken());
    await(tokens.remove("tenant-a", GITHUB));
    await(tokens.remove("tenant-a", GITHUB));
    assertNull(await(tokens.get("tenant-a", GITHUB)));
    assertEquals("access-b-github", await(tokens.get("tenant-b", GITHUB)).accessToken());
    assertEquals(3, rawRows().size());
  }

  @Test
  void theTableHoldsNoTokenInPlainTextAndEachWriteAFreshNonce() throws Exception {
    await(tokens.put("tenant-a", GITHUB, tokens("access-token-of-tenant-a")));
    byte[] first = rawRows().get(0).sealed();
    await(tokens.put("tenant-a", GITHUB, tokens("access-token-of-tenant-a")));
    List<RawRow> rows = rawRows();
    assertEquals(1, rows.size());
    RawRow row = rows.get(0);
    assertEquals("tenant-a", row.tenant());
    assertEquals(GITHUB, row.serverKey());
    assertFalse(java.util.Arrays.equals(first, row.sealed()), "the same tokens sealed twice look the same");
    String raw = new String(row.sealed(), StandardCharsets.ISO_8859_1) + rawFiles();
    for (String secret : List.of("access-token-of-tenant-a", "refresh-access-token-of-tenant-a",
      "client-secret-access-token-of-tenant-a", "client-1", "as.example.com")) {
      assertFalse(raw.contains(secret), "the database shows " + secret);
    }
  }

  @Test
  void aRowCopiedToAnotherTenantDoesNotDecrypt() throws Exception {
    await(tokens.put("tenant-a", GITHUB, tokens("access-token-of-tenant-a")));
    copyRow("tenant-a", "tenant-b", GITHUB);
    copyRow("tenant-a", "", GITHUB);
    for (String tenant : new String[] {"tenant-b", null}) {
      Throwable err = failure(tokens.get(tenant, GITHUB));
      assertTrue(err.getMessage().contains("cannot be decrypted"), err.getMessage());
      assertTrue(err.getMessage().contains("for another tenant or server"), err.getMessage());
      assertFalse(err.getMessage().contains("access-token-of-tenant-a"), err.getMessage());
    }
    assertEquals("access-token-of-tenant-a", await(tokens.get("tenant-a", GITHUB)).accessToken());
  }

  @Test
  void anotherKeyGetsAClearErrorNeverTokens() throws Exception {
    await(tokens.put(null, GITHUB, tokens("access-token-xyz")));
    Throwable err = failure(second(newKey()).get(null, GITHUB));
    assertTrue(err.getMessage().contains("cannot be decrypted: they were written with another AGENTBUS_TOKEN_KEY"),
      err.getMessage());
    assertTrue(err.getMessage().contains("the shared identity"), err.getMessage());
    assertFalse(err.getMessage().contains("access-token-xyz"), err.getMessage());
  }

  @Test
  void anEmptyTenantIsRefused() throws Exception {
    Throwable err = failure(tokens.put("", GITHUB, tokens("access-token-xyz")));
    assertInstanceOf(StoreException.class, err);
    assertEquals(Kind.INVALID, ((StoreException) err).kind());
    assertTrue(rawRows().isEmpty());
  }

  @Test
  void twoProcessesSeeEachOthersWrites() throws Exception {
    TokenStore other = second(key);
    assertNull(await(other.get("tenant-a", GITHUB)));
    await(tokens.put("tenant-a", GITHUB, tokens("written-by-one")));
    assertEquals("written-by-one", await(other.get("tenant-a", GITHUB)).accessToken());
    await(other.put("tenant-a", GITHUB, tokens("refreshed-by-two")));
    assertEquals("refreshed-by-two", await(tokens.get("tenant-a", GITHUB)).accessToken());
    await(tokens.remove("tenant-a", GITHUB));
    assertNull(await(other.get("tenant-a", GITHUB)));
  }

  @Test
  void concurrentWritesLoseNothing() throws Exception {
    TokenStore other = second(key);
    List<Future<Void>> writes = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      TokenStore via = i % 2 == 0 ? tokens : other;
      writes.add(via.put("tenant-" + (i % 8), "server-" + i + " https://s" + i + ".example/mcp", tokens("access-" + i)));
      // and everyone at once on one row: the last write wins whole, never a mix
      writes.add(via.put("tenant-x", GITHUB, tokens("contended-" + i)));
    }
    await(Future.all(writes));
    for (int i = 0; i < 40; i++) {
      TokenStore via = i % 2 == 0 ? other : tokens;
      TokenSet got = await(via.get("tenant-" + (i % 8), "server-" + i + " https://s" + i + ".example/mcp"));
      assertNotNull(got, "write " + i + " was lost");
      assertEquals("access-" + i, got.accessToken());
    }
    TokenSet contended = await(other.get("tenant-x", GITHUB));
    assertTrue(contended.accessToken().startsWith("contended-"), contended.toString());
    assertEquals("refresh-" + contended.accessToken(), contended.refreshToken());
    Set<String> keys = new HashSet<>();
    rawRows().forEach(r -> keys.add(r.tenant() + "|" + r.serverKey()));
    assertEquals(41, keys.size());
  }
}
