package io.agentbus.mcp.auth;

import io.vertx.core.Future;

/**
 * Where tokens are kept, per (tenant, server). A {@code null} tenant is the shared (default)
 * identity; a tenant's tokens are never returned for another tenant. Implementations must
 * not log token values. {@link DatabaseTokenStore} keeps them in the conversation store's
 * table, {@link EncryptedFileTokenStore} in an AES-GCM encrypted file, {@link InMemoryTokenStore}
 * in memory; {@link TokenStores} picks one from the environment.
 */
public interface TokenStore {

  /** @return the tokens for (tenant, server), or {@code null} when none are stored */
  Future<TokenSet> get(String tenant, String serverKey);

  /** Stores (replaces) the tokens for (tenant, server). */
  Future<Void> put(String tenant, String serverKey, TokenSet tokens);

  /** Forgets the tokens for (tenant, server). */
  Future<Void> remove(String tenant, String serverKey);

  /** The key of one (tenant, server) entry in a flat map: tenants cannot collide with each other or the default. */
  static String key(String tenant, String serverKey) {
    return (tenant == null ? "-" : "t:" + tenant.length() + ":" + tenant) + "|" + serverKey;
  }
}
