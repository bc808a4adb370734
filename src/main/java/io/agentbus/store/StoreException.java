package io.agentbus.store;

/**
 * A failed store operation. {@link #kind()} says what went wrong, so that a caller can map it
 * without parsing messages (the HTTP status in brackets is the suggested mapping).
 *
 * <p>Messages name the store (e.g. {@code conversation store postgres
 * (postgresql://agent@db:5432/agentbus)}) and, where there is one, the conversation. They never
 * carry a password: nothing built from a connection URI keeps its credentials.
 */
public final class StoreException extends RuntimeException {

  /** What kind of failure this is. */
  public enum Kind {
    /** No conversation with that id: never created, or deleted [404]. */
    NOT_FOUND,
    /**
     * Another writer got there first: {@code appendTurn} found a version other than the one
     * expected, or {@code insert} found the id taken. Reload and decide [409].
     */
    CONFLICT,
    /**
     * The database cannot be reached or refused the work for now: connection refused or lost,
     * server shutting down, file locked or unwritable, too many requests waiting, the store
     * closed. Nothing was written; retry later. A pool reconnects by itself [503].
     */
    UNAVAILABLE,
    /**
     * The operation outlived its deadline ({@code requestTimeoutMs}). A read can be retried; a
     * write may still have committed: reload before retrying it [503].
     */
    TIMEOUT,
    /**
     * What is stored cannot be read back (invalid JSON, a message that is not an object): the
     * conversation names in the message cannot be loaded, the others are unaffected [500].
     */
    CORRUPT,
    /** The request itself is invalid (bad cursor, limit out of range, missing id) [400]. */
    INVALID,
    /** Any other database error (a constraint, a trigger, a bug) [500]. */
    FAILED
  }

  private final Kind kind;

  public StoreException(Kind kind, String message) {
    this(kind, message, null);
  }

  public StoreException(Kind kind, String message, Throwable cause) {
    // Expected failures (conflicts, not found) on the hot path: no stack trace.
    super(message, cause, false, false);
    this.kind = kind;
  }

  /** @return what kind of failure this is */
  public Kind kind() {
    return kind;
  }

  /** @return whether {@code failure} is a {@link StoreException} of that kind */
  public static boolean is(Throwable failure, Kind kind) {
    return failure instanceof StoreException se && se.kind == kind;
  }

  @Override
  public String toString() {
    return "StoreException[" + kind + "]: " + getMessage();
  }
}
