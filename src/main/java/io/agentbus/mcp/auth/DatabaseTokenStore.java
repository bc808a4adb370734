package io.agentbus.mcp.auth;

import io.agentbus.store.TokenTable;
import io.vertx.core.Future;
import java.security.GeneralSecurityException;
import java.util.Objects;

/**
 * Tokens in the conversation store's {@code oauth_tokens} table (SQLite or PostgreSQL), one
 * row per (tenant, server), each sealed on its own ({@link TokenSealer}: AES-GCM, a fresh nonce
 * per write, the row's tenant and server as associated data) with the key from
 * {@code AGENTBUS_TOKEN_KEY}. Nothing is cached: every call goes to the database, so a
 * command-line run, a running {@code serve} and the nodes of a cluster sharing one PostgreSQL
 * see each other's tokens. A row that does not open (another key, a row copied from another
 * tenant or server, damage) fails with a message that says so and never yields tokens.
 */
public final class DatabaseTokenStore implements TokenStore {

  private final TokenTable table;
  private final TokenSealer sealer;
  private final String where;

  /**
   * @param table the conversation store's table
   * @param key the key, 16, 24 or 32 bytes ({@link EncryptedFileTokenStore#decodeKey})
   * @param where the store, for errors (e.g. {@code sqlite (data/agentbus.db)}): never with credentials
   * @throws IllegalArgumentException when the key has another length
   */
  public DatabaseTokenStore(TokenTable table, byte[] key, String where) {
    this.table = Objects.requireNonNull(table, "'table' cannot be null");
    this.sealer = new TokenSealer(key);
    this.where = Objects.requireNonNull(where, "'where' cannot be null");
  }

  @Override
  public Future<TokenSet> get(String tenant, String serverKey) {
    return table.get(tenant, serverKey).compose(sealed -> {
      if (sealed == null) {
        return Future.succeededFuture();
      }
      try {
        return Future.succeededFuture(sealer.open(tenant, serverKey, sealed));
      } catch (GeneralSecurityException | RuntimeException e) {
        return Future.failedFuture(new IllegalStateException("the stored OAuth tokens of " + whom(tenant)
          + " in the conversation store " + where + " cannot be decrypted: they were written with another "
          + EncryptedFileTokenStore.KEY_ENV + ", for another tenant or server, or are damaged"));
      }
    });
  }

  @Override
  public Future<Void> put(String tenant, String serverKey, TokenSet tokens) {
    byte[] sealed;
    try {
      sealed = sealer.seal(tenant, serverKey, tokens);
    } catch (GeneralSecurityException e) {
      return Future.failedFuture(new IllegalStateException("cannot encrypt OAuth tokens: " + e.getClass().getSimpleName()));
    }
    return table.put(tenant, serverKey, sealed);
  }

  @Override
  public Future<Void> remove(String tenant, String serverKey) {
    return table.remove(tenant, serverKey);
  }

  private static String whom(String tenant) {
    return tenant == null ? "the shared identity" : "tenant '" + tenant + "'";
  }

  @Override
  public String toString() {
    return "DatabaseTokenStore[" + where + "]";
  }
}
