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
  static final int LATEST = 3;

  static final String SQLITE_VERSION_TABLE =
    "CREATE TABLE IF NOT EXISTS agentbus_schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)";

  static final String PG_VERSION_TABLE =
    "CREATE TABLE IF NOT EXISTS agentbus_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())";

  /**
   * {@code agentbus_merge_usage(totals, turn)}: {@link StoreSupport#mergeUsage} in SQL. Numbers
   * are summed: exactly when both are integers (scale 0), else as doubles, the sum kept a decimal
   * (a Java double encodes as {@code 3.0}); objects merge recursively; any other value of the
   * turn's replaces the old one. {@code extra_float_digits} makes the double's text the shortest
   * that reads back as the same double, as Java's is.
   */
  static final String MERGE_USAGE = """
    CREATE OR REPLACE FUNCTION agentbus_merge_usage(totals jsonb, turn jsonb) RETURNS jsonb
    LANGUAGE plpgsql IMMUTABLE SET extra_float_digits = 1 AS $$
    DECLARE
      merged jsonb := coalesce(totals, '{}'::jsonb);
      k text;
      v jsonb;
      old jsonb;
      total numeric;
    BEGIN
      IF turn IS NULL OR jsonb_typeof(turn) <> 'object' THEN
        RETURN merged;
      END IF;
      FOR k, v IN SELECT key, value FROM jsonb_each(turn) LOOP
        old := merged -> k;
        IF jsonb_typeof(old) = 'number' AND jsonb_typeof(v) = 'number' THEN
          IF scale(old::numeric) = 0 AND scale(v::numeric) = 0 THEN
            v := to_jsonb(old::numeric + v::numeric);
          ELSE
            total := ((old::numeric)::float8 + (v::numeric)::float8)::text::numeric;
            IF scale(total) = 0 THEN
              total := total + 0.0;
            END IF;
            v := to_jsonb(total);
          END IF;
        ELSIF jsonb_typeof(old) = 'object' AND jsonb_typeof(v) = 'object' THEN
          v := agentbus_merge_usage(old, v);
        END IF;
        merged := merged || jsonb_build_object(k, v);
      END LOOP;
      RETURN merged;
    END
    $$""";

  /**
   * {@code agentbus_usage_long(value)}: {@link StoreSupport#usageLong} of one usage field, for the
   * token columns: a number truncated toward zero and clamped to bigint, anything else 0.
   */
  static final String USAGE_LONG = """
    CREATE OR REPLACE FUNCTION agentbus_usage_long(value jsonb) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN jsonb_typeof(value) = 'number'
        THEN greatest(least(trunc(value::numeric), 9223372036854775807), -9223372036854775808)::bigint
        ELSE 0 END
    $$""";

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
      ) WITHOUT ROWID"""),
    // 2: PostgreSQL's turn functions; nothing to do here, the version keeps both dialects level
    List.of("SELECT 1"),
    // 3: OAuth tokens, sealed by their owner (see TokenTable); the shared identity's tenant is ''
    List.of("""
      CREATE TABLE oauth_tokens (
        tenant TEXT NOT NULL,
        server_key TEXT NOT NULL,
        sealed BLOB NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (tenant, server_key)
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
      )"""),
    // 2: a turn commits in one statement, its usage merged in the database (see PgConversationStore)
    List.of(MERGE_USAGE, USAGE_LONG),
    // 3: OAuth tokens, sealed by their owner (see TokenTable); the shared identity's tenant is ''
    List.of("""
      CREATE TABLE oauth_tokens (
        tenant text NOT NULL,
        server_key text NOT NULL,
        sealed bytea NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, server_key)
      )"""));

  private Migrations() {
  }
}
