package io.agentbus.store;

import io.vertx.core.Future;

/**
 * The {@code oauth_tokens} table of a durable conversation store: one opaque value per
 * (tenant, server key), for a caller that encrypts what it stores (the OAuth client keeps its
 * tokens here, sealed with a key the store never sees). Every call reads or writes the
 * database, so other processes on the same file or database see each write at once.
 *
 * <p>Like the store's own operations, every call returns a {@link Future} completed on the
 * caller's context, has the store's deadline and fails with a {@link StoreException}.
 */
public interface TokenTable {

  /**
   * @param tenant the tenant, or {@code null} for the shared identity (an empty tenant is
   *     INVALID: the column stores the shared identity as {@code ''})
   * @return the stored value, or {@code null} when there is none
   */
  Future<byte[]> get(String tenant, String serverKey);

  /** Stores (replaces) the value of (tenant, server key). */
  Future<Void> put(String tenant, String serverKey, byte[] value);

  /** Removes the value of (tenant, server key); done when there was none too. */
  Future<Void> remove(String tenant, String serverKey);

  /**
   * @return the column value of {@code tenant}: {@code ''} for the shared identity
   * @throws StoreException INVALID for an empty tenant or a missing server key
   */
  static String tenantColumn(String tenant, String serverKey) {
    if (tenant != null && tenant.isEmpty()) {
      throw new StoreException(StoreException.Kind.INVALID, "a tenant must not be empty");
    }
    if (serverKey == null || serverKey.isEmpty()) {
      throw new StoreException(StoreException.Kind.INVALID, "a server key is required");
    }
    return tenant == null ? "" : tenant;
  }
}
