package io.agentbus.bench;

import java.util.concurrent.CompletionStage;

/**
 * One thing under load: Agentbus, the LangChain4j peer, or the raw HTTP ceiling. Started once
 * per run; {@link #conversation(int)} runs one whole conversation (create, one turn of model →
 * K tools → model, clean-up) and completes when it is over, failing if the turn did not end
 * as expected.
 */
interface Subject extends AutoCloseable {

  /** @return the short name used in tables and JSON */
  String name();

  /** Starts the subject (spawns its MCP server, builds its clients). */
  void start() throws Exception;

  /** Starts conversation {@code i}; must not block the caller. */
  CompletionStage<?> conversation(int i);

  /** @return model round trips per conversation (for the ceiling, which makes only these) */
  default int modelCallsPerConversation() {
    return 2;
  }
}
