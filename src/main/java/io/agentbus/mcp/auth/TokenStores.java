package io.agentbus.mcp.auth;

import io.agentbus.store.ConversationStore;
import io.agentbus.store.TokenTable;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which {@link TokenStore} the environment asks for. With {@value EncryptedFileTokenStore#KEY_ENV}
 * set: a durable conversation store (SQLite, PostgreSQL) keeps the tokens in its own table
 * ({@link DatabaseTokenStore}); otherwise (no store, the {@code memory} store) they go to the
 * encrypted file {@code AGENTBUS_TOKEN_FILE} (default {@value EncryptedFileTokenStore#DEFAULT_PATH}).
 * Without the key they are kept in memory only, with one warning (writing tokens unencrypted is
 * never the fallback); a malformed key gives a store whose every operation fails with the reason.
 */
public final class TokenStores {

  /** The environment variable that moves the token file. */
  public static final String FILE_ENV = "AGENTBUS_TOKEN_FILE";
  private static final Logger LOG = LoggerFactory.getLogger(TokenStores.class);

  private TokenStores() {
  }

  /** @return the store the process environment asks for, with no conversation store (the file, or memory) */
  public static TokenStore fromEnvironment(Vertx vertx) {
    return fromEnvironment(vertx, null, System.getenv());
  }

  /** @return the store the process environment asks for next to {@code conversations} (see the class comment) */
  public static TokenStore fromEnvironment(Vertx vertx, ConversationStore conversations) {
    return fromEnvironment(vertx, conversations, System.getenv());
  }

  /**
   * @param conversations the conversation store, or {@code null}
   * @param env the environment to read ({@value EncryptedFileTokenStore#KEY_ENV}, {@value #FILE_ENV})
   */
  public static TokenStore fromEnvironment(Vertx vertx, ConversationStore conversations, Map<String, String> env) {
    Optional<TokenTable> table = conversations == null ? Optional.empty() : conversations.tokenTable();
    String key = env.get(EncryptedFileTokenStore.KEY_ENV);
    if (key == null || key.isBlank()) {
      return memoryWithWarning(table.isPresent()
        ? "set it to keep them encrypted in the conversation store " + conversations.describe() : null);
    }
    byte[] k;
    try {
      k = EncryptedFileTokenStore.decodeKey(key);
    } catch (IllegalArgumentException e) {
      LOG.error("{}; OAuth servers cannot be authorized", e.getMessage());
      return failing(e.getMessage());
    }
    if (table.isPresent()) {
      LOG.info("OAuth tokens are kept encrypted in the conversation store {}", conversations.describe());
      return new DatabaseTokenStore(table.get(), k, conversations.describe());
    }
    String file = env.get(FILE_ENV);
    return new EncryptedFileTokenStore(vertx, file == null || file.isBlank() ? EncryptedFileTokenStore.DEFAULT_PATH : file, k);
  }

  /** Memory only, warning once (on first use) that the tokens are lost when the process ends. */
  private static TokenStore memoryWithWarning(String hint) {
    InMemoryTokenStore memory = new InMemoryTokenStore();
    return new TokenStore() {
      private volatile boolean warned;

      @Override
      public Future<TokenSet> get(String tenant, String serverKey) {
        if (!warned) {
          warned = true;
          LOG.warn("{} is not set: OAuth tokens are kept in memory only and are lost when the process ends{}",
            EncryptedFileTokenStore.KEY_ENV, hint == null ? "" : " (" + hint + ")");
        }
        return memory.get(tenant, serverKey);
      }

      @Override
      public Future<Void> put(String tenant, String serverKey, TokenSet tokens) {
        return memory.put(tenant, serverKey, tokens);
      }

      @Override
      public Future<Void> remove(String tenant, String serverKey) {
        return memory.remove(tenant, serverKey);
      }
    };
  }

  /** A store whose every operation fails with {@code why} (a malformed key: never the key itself). */
  private static TokenStore failing(String why) {
    return new TokenStore() {
      @Override
      public Future<TokenSet> get(String tenant, String serverKey) {
        return Future.failedFuture(why);
      }

      @Override
      public Future<Void> put(String tenant, String serverKey, TokenSet tokens) {
        return Future.failedFuture(why);
      }

      @Override
      public Future<Void> remove(String tenant, String serverKey) {
        return Future.failedFuture(why);
      }
    };
  }
}
