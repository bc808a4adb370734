package io.agentbus.store.impl;

import java.util.List;

/**
 * The schema, as numbered migrations per dialect. A store applies the ones above the version
 * recorded in {@code agentbus_schema_version} at start, each in one transaction with its version
 * row; a database at a version above {@link #LATEST} is refused (a newer build wrote it).
 * Append new migrations; never edit a released one.
 */
final class Migrations {

  /** The schema version this build writes. */
  static final int LATEST = 1;

  static final String SQLITE_VERSION_TABLE =
    "CREATE TABLE IF NOT EXISTS agentbus_schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)";

  static final String PG_VERSION_TABLE =
    "CREATE TABLE IF NOT EXISTS agentbus_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())";

  /** Migration {@code i + 1} is {@code SQLITE.get(i)}: its statements in order. */
  static final List<List<String>> SQLITE = List.of(
    List.of(
      """
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        tenant TEXT,
        title TEXT,
        system_prompt TEXT,
        tools TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        version INTEGER NOT NULL,
        message_count INTEGER NOT NULL,
        usage TEXT NOT NULL,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
        cache_read_input_tokens INTEGER NOT NULL DEFAULT 0
      )""",
      "CREATE INDEX conversations_by_tenant ON conversations (tenant, updated_at DESC, id DESC)",
      """
      CREATE TABLE conversation_messages (
        conversation_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        turn INTEGER NOT NULL,
        content TEXT NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      ) WITHOUT ROWID"""));

  /** Migration {@code i + 1} is {@code PG.get(i)}: its statements in order. */
  static final List<List<String>> PG = List.of(
    List.of(
      """
      CREATE TABLE conversations (
        id text PRIMARY KEY,
        tenant text,
        title text,
        system_prompt text,
        tools jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        version bigint NOT NULL,
        message_count integer NOT NULL,
        usage jsonb NOT NULL,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        cache_creation_input_tokens bigint NOT NULL DEFAULT 0,
        cache_read_input_tokens bigint NOT NULL DEFAULT 0
      )""",
      "CREATE INDEX conversations_by_tenant ON conversations (tenant, updated_at DESC, id DESC)",
      """
      CREATE TABLE conversation_messages (
        conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        turn bigint NOT NULL,
        content jsonb NOT NULL,
        PRIMARY KEY (conversation_id, seq)
      )"""));

  private Migrations() {
  }
}
