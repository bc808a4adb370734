package io.agentbus.mcp.auth;

import io.vertx.core.Future;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Tokens in memory only: lost when the process ends. For tests, and when no key is configured. */
public final class InMemoryTokenStore implements TokenStore {

  private final Map<String, TokenSet> tokens = new ConcurrentHashMap<>();

  @Override
  public Future<TokenSet> get(String tenant, String serverKey) {
    return Future.succeededFuture(tokens.get(TokenStore.key(tenant, serverKey)));
  }

  @Override
  public Future<Void> put(String tenant, String serverKey, TokenSet set) {
    tokens.put(TokenStore.key(tenant, serverKey), set);
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> remove(String tenant, String serverKey) {
    tokens.remove(TokenStore.key(tenant, serverKey));
    return Future.succeededFuture();
  }
}
