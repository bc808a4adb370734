package io.agentbus.store;

import io.agentbus.store.impl.MemoryConversationStore;
import io.agentbus.store.impl.PgConversationStore;
import io.agentbus.store.impl.SqliteConversationStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The truth about conversations: settings, committed history, usage totals, version. The
 * conversation verticle keeps a bounded cache in front of it and writes once per turn, when
 * the turn ends; a turn in progress is never stored, so a history loaded after a crash ends
 * with the last committed turn (never a dangling {@code tool_use}).
 *
 * <p>Every operation returns a {@link Future} completed on the caller's context, and fails
 * with a {@link StoreException} whose {@link StoreException.Kind kind} says what happened.
 * Every operation has a deadline ({@link StoreOptions#getRequestTimeoutMs()}), the number
 * waiting for the database is bounded ({@link StoreOptions#getMaxPendingRequests()}), and the
 * ones still waiting when the store closes fail. Nothing blocks the event loop: SQLite runs on
 * a thread of its own, PostgreSQL through the reactive client.
 *
 * <p>Instances are safe to share between verticles and event loops.
 */
public interface ConversationStore {

  /**
   * Opens the store {@code options} describe, creating what is missing (the SQLite file and its
   * parent directories; tables, indexes and migrations in both databases).
   *
   * @return the open store, or a failure ({@link StoreException.Kind#UNAVAILABLE} when the
   *     database cannot be reached or opened, {@link StoreException.Kind#INVALID} for unusable
   *     options) whose message names the store, never with a password
   */
  static Future<ConversationStore> create(Vertx vertx, StoreOptions options) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    Objects.requireNonNull(options, "'options' cannot be null");
    StoreOptions copy = new StoreOptions(options);
    return switch (copy.getType()) {
      case MEMORY -> Future.succeededFuture(new MemoryConversationStore());
      case SQLITE -> SqliteConversationStore.open(vertx, copy);
      case POSTGRES -> PgConversationStore.open(vertx, copy);
    };
  }

  /** @return the default store: an SQLite file at {@value StoreOptions#DEFAULT_PATH} */
  static Future<ConversationStore> create(Vertx vertx) {
    return create(vertx, new StoreOptions());
  }

  /**
   * @return the store for log lines and errors, without credentials: {@code memory},
   *     {@code sqlite (data/agentbus.db)}, {@code postgres (postgresql://agent@db:5432/agentbus)}
   */
  String describe();

  /**
   * Stores a new conversation at version 0, without messages.
   *
   * @return the stored conversation; CONFLICT when the id is taken
   */
  Future<StoredConversation> insert(NewConversation conversation);

  /**
   * Reads a conversation with every committed message.
   *
   * @return the conversation; NOT_FOUND when there is none, CORRUPT (naming it) when what is
   *     stored cannot be read back
   */
  Future<StoredConversation> load(String id);

  /**
   * Reads only a conversation's committed version, to tell whether a copy in memory is still
   * current (another node may have committed a turn since). This default loads the whole
   * conversation; stores that can read one row do so.
   *
   * @return the version; NOT_FOUND when there is none
   */
  default Future<Long> version(String id) {
    return load(id).map(StoredConversation::version);
  }

  /**
   * Commits one turn in one transaction: appends {@code messages} after the stored ones, adds
   * {@code usage} to the totals field by field (numbers are summed, nested objects merged, other
   * values replaced), sets the title from the first user text when it has none, bumps the version
   * by one and sets {@code updatedAt}. Either all of it is stored or nothing.
   *
   * @param id the conversation
   * @param expectedVersion the version the caller's history is at (from {@code load},
   *     {@code insert} or the previous {@code appendTurn})
   * @param messages the turn's messages, Anthropic-shaped, in order (may be empty: a turn that
   *     only used tokens); they are copied, the caller keeps them
   * @param usage the turn's usage object (e.g. {@code input_tokens}, {@code output_tokens}), or
   *     {@code null}
   * @return what was committed; CONFLICT when the stored version is not {@code expectedVersion}
   *     (another writer committed first: nothing was written), NOT_FOUND when it was deleted
   */
  Future<TurnCommit> appendTurn(String id, long expectedVersion, List<JsonObject> messages, JsonObject usage);

  /**
   * Lists a tenant's conversations, newest first ({@code updatedAt}, then id, descending).
   *
   * @param tenant the tenant, or {@code null} for the conversations without one
   * @param limit the most items to return, 1 to {@value #MAX_LIST_LIMIT}
   * @param afterCursor {@code null} for the first page, else a previous page's
   *     {@link ConversationPage#nextCursor()}
   * @return the page; INVALID for a limit out of range or a cursor this store did not make
   */
  Future<ConversationPage> list(String tenant, int limit, String afterCursor);

  /**
   * Deletes a conversation and its messages.
   *
   * @return done; NOT_FOUND when there was none
   */
  Future<Void> delete(String id);

  /**
   * Sums the usage of a tenant's (existing) conversations.
   *
   * @param tenant the tenant, or {@code null} for the conversations without one
   * @return {@code {conversations, turns, input_tokens, output_tokens, cache_creation_input_tokens,
   *     cache_read_input_tokens}}
   */
  Future<JsonObject> usageTotals(String tenant);

  /**
   * Closes the store: operations still waiting fail with UNAVAILABLE, later ones too.
   *
   * @return done when the database connections are closed
   */
  Future<Void> close();

  /**
   * @return the store's {@code oauth_tokens} table (SQLite and PostgreSQL), or empty for a store
   *     that keeps nothing durably (memory)
   */
  default Optional<TokenTable> tokenTable() {
    return Optional.empty();
  }

  /** The largest page {@link #list} returns. */
  int MAX_LIST_LIMIT = 1_000;
}
