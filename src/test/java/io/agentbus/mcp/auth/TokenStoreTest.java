package io.agentbus.mcp.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** Tokens at rest: encrypted on disk, never handed to another tenant. */
@ExtendWith(VertxExtension.class)
class TokenStoreTest {

  private static final String SERVER = "github https://mcp.example.com/mcp";

  private static TokenSet tokens(String access) {
    return new TokenSet(access, "refresh-" + access, 0, List.of("read"), "https://as.example.com", "https://mcp.example.com/mcp",
      new ClientIdentity("client-1", "client-secret-" + access, "client_secret_basic"));
  }

  private static byte[] key() {
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    return k;
  }

  @Test
  void theFileHoldsNoTokenAndTenantsAreApart(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    String file = dir.resolve("data/oauth-tokens.bin").toString();
    byte[] key = key();
    EncryptedFileTokenStore store = new EncryptedFileTokenStore(vertx, file, key);
    store.put("tenant-a", SERVER, tokens("access-token-of-tenant-a"))
      .compose(v -> store.put(null, SERVER, tokens("access-token-of-default")))
      .compose(v -> {
        // another process with the same key reads what was written
        EncryptedFileTokenStore reopened = new EncryptedFileTokenStore(vertx, file, key);
        return Future.all(reopened.get("tenant-a", SERVER), reopened.get("tenant-b", SERVER), reopened.get(null, SERVER),
          reopened.get("tenant-a", "other-server"));
      })
      .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        String onDisk = new String(Files.readAllBytes(Path.of(file)), StandardCharsets.ISO_8859_1);
        for (String secret : List.of("access-token-of-tenant-a", "refresh-access-token-of-tenant-a",
          "client-secret-access-token-of-tenant-a", "access-token-of-default", "tenant-a", "client-1")) {
          assertFalse(onDisk.contains(secret), "the file shows " + secret);
        }
        assertEquals("access-token-of-tenant-a", ((TokenSet) all.resultAt(0)).accessToken());
        assertNull(all.resultAt(1), "tenant B must not get tenant A's tokens");
        assertEquals("access-token-of-default", ((TokenSet) all.resultAt(2)).accessToken());
        assertNull(all.resultAt(3));
        assertEquals("client-secret-access-token-of-tenant-a", ((TokenSet) all.resultAt(0)).client().clientSecret());
        ctx.completeNow();
      })));
  }

  @Test
  void anotherKeyCannotReadTheFileAndSaysSo(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    String file = dir.resolve("tokens.bin").toString();
    new EncryptedFileTokenStore(vertx, file, key()).put("t", SERVER, tokens("access-token-xyz"))
      .compose(v -> new EncryptedFileTokenStore(vertx, file, key()).get("t", SERVER))
      .onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertTrue(err.getMessage().contains("another AGENTBUS_TOKEN_KEY"), err.getMessage());
        assertFalse(err.getMessage().contains("access-token-xyz"));
        ctx.completeNow();
      })));
  }

  @Test
  void removeForgetsOneTenantOnly(Vertx vertx, VertxTestContext ctx) {
    TokenStore store = new InMemoryTokenStore();
    store.put("a", SERVER, tokens("ta")).compose(v -> store.put("b", SERVER, tokens("tb")))
      .compose(v -> store.remove("a", SERVER))
      .compose(v -> Future.all(store.get("a", SERVER), store.get("b", SERVER)))
      .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        assertNull(all.resultAt(0));
        assertEquals("tb", ((TokenSet) all.resultAt(1)).accessToken());
        ctx.completeNow();
      })));
  }

  @Test
  void aBadKeyIsRefusedWithoutShowingIt() {
    String shortKey = Base64.getEncoder().encodeToString("too-short-key".getBytes(StandardCharsets.UTF_8));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> EncryptedFileTokenStore.decodeKey(shortKey));
    assertTrue(e.getMessage().contains("16, 24 or 32 bytes"), e.getMessage());
    assertFalse(e.getMessage().contains(shortKey));
    assertTrue(tokens("x").toString().indexOf("refresh-x") < 0, "toString shows no secret");
    assertFalse(tokens("secret-access").toString().contains("secret-access"));
  }
}
