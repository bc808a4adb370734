package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.store.ConversationStore;
import io.agentbus.store.StoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which token store the environment and the conversation store give, as the README's table says. */
class TokenStoresTest {

  private static final String SERVER = "github https://mcp.example.com/mcp";

  @TempDir
  Path dir;
  private Vertx vertx;
  private ConversationStore sqlite;
  private ConversationStore memory;
  private String key;

  @BeforeEach
  void open() throws Exception {
    vertx = Vertx.vertx();
    sqlite = await(ConversationStore.create(vertx, new StoreOptions().setPath(dir.resolve("agentbus.db").toString())));
    memory = await(ConversationStore.create(vertx, new StoreOptions().setType(StoreOptions.Type.MEMORY)));
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    key = Base64.getEncoder().encodeToString(k);
  }

  @AfterEach
  void close() throws Exception {
    await(sqlite.close());
    await(vertx.close());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(30, TimeUnit.SECONDS);
  }

  private static TokenSet tokens(String access) {
    return new TokenSet(access, null, 0, List.of(), "https://as.example.com", "https://mcp.example.com/mcp",
      new ClientIdentity("client-1", null, "none"));
  }

  @Test
  void withTheKeyADurableStoreKeepsTheTokensInItsTable() throws Exception {
    TokenStore store = TokenStores.fromEnvironment(vertx, sqlite, Map.of("AGENTBUS_TOKEN_KEY", key));
    assertInstanceOf(DatabaseTokenStore.class, store);
    await(store.put("acme", SERVER, tokens("access-1")));
    // what another process finds in the same file with the same key
    TokenStore again = TokenStores.fromEnvironment(vertx, sqlite, Map.of("AGENTBUS_TOKEN_KEY", key));
    assertEquals("access-1", await(again.get("acme", SERVER)).accessToken());
    assertFalse(Files.exists(dir.resolve("tokens.bin")));
  }

  @Test
  void withTheKeyAndTheMemoryStoreTheTokensGoToTheFile() throws Exception {
    Path file = dir.resolve("tokens.bin");
    TokenStore store = TokenStores.fromEnvironment(vertx, memory,
      Map.of("AGENTBUS_TOKEN_KEY", key, "AGENTBUS_TOKEN_FILE", file.toString()));
    assertInstanceOf(EncryptedFileTokenStore.class, store);
    await(store.put(null, SERVER, tokens("access-1")));
    assertTrue(Files.exists(file));
    assertInstanceOf(EncryptedFileTokenStore.class, TokenStores.fromEnvironment(vertx, null, Map.of("AGENTBUS_TOKEN_KEY", key)));
  }

  @Test
  void withoutTheKeyTheTokensStayInMemoryNeverInTheTable() throws Exception {
    TokenStore store = TokenStores.fromEnvironment(vertx, sqlite, Map.of());
    await(store.put("acme", SERVER, tokens("access-1")));
    assertEquals("access-1", await(store.get("acme", SERVER)).accessToken());
    assertNull(await(sqlite.tokenTable().orElseThrow().get("acme", SERVER)));
  }

  @Test
  void aMalformedKeyFailsEveryOperationWithTheReasonNeverTheKey() throws Exception {
    for (String bad : new String[] {"not base64 at all!", Base64.getEncoder().encodeToString(new byte[7])}) {
      TokenStore store = TokenStores.fromEnvironment(vertx, sqlite, Map.of("AGENTBUS_TOKEN_KEY", bad));
      Throwable err = assertFails(store.get(null, SERVER));
      assertTrue(err.getMessage().startsWith("AGENTBUS_TOKEN_KEY "), err.getMessage());
      assertFalse(err.getMessage().contains(bad), err.getMessage());
      assertFails(store.put(null, SERVER, tokens("access-1")));
    }
    assertNull(await(sqlite.tokenTable().orElseThrow().get(null, SERVER)));
  }

  private static Throwable assertFails(Future<?> f) {
    try {
      f.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("the operation succeeded");
  }

  @Test
  void installDefaultKeepsAnInstalledManagerAndReplacesTheLazyDefault() {
    OAuthManager lazy = OAuthManager.of(vertx).defaultRedirectUri("http://127.0.0.1:1234/oauth/callback");
    OAuthManager serve = OAuthManager.installDefault(vertx, new InMemoryTokenStore());
    assertFalse(lazy == serve);
    assertSame(serve, OAuthManager.of(vertx));
    assertEquals("http://127.0.0.1:1234/oauth/callback", serve.defaultRedirectUri());
    OAuthManager embedder = OAuthManager.install(vertx, new InMemoryTokenStore(), null);
    assertSame(embedder, OAuthManager.installDefault(vertx, new InMemoryTokenStore()));
    assertSame(embedder, OAuthManager.of(vertx));
  }
}
