/**
 * The conversation store: where conversations live durably. {@link io.agentbus.store.ConversationStore}
 * with three implementations chosen by {@link io.agentbus.store.StoreOptions#getType()}: an SQLite
 * file (the default), PostgreSQL (production, clusters) and memory (tests, benchmarks).
 *
 * <p>This package sits at the bottom of the dependency graph: it uses Vert.x, the JDK, SLF4J and
 * the two database drivers, and no other {@code io.agentbus} package.
 *
 * <p>Schema (both databases; see {@code impl/Migrations}): {@code conversations} (one row per
 * conversation: id, tenant, title, system_prompt, tools, created_at, updated_at, version,
 * message_count, usage, and the four Anthropic token totals as columns), index
 * {@code (tenant, updated_at DESC, id DESC)}; {@code conversation_messages} (conversation_id,
 * seq, turn, content; primary key (conversation_id, seq)); {@code oauth_tokens} (tenant ({@code ''}
 * for the shared identity), server_key, sealed, updated_at; primary key (tenant, server_key); see
 * {@link io.agentbus.store.TokenTable}); {@code agentbus_schema_version}.
 */
package io.agentbus.store;
