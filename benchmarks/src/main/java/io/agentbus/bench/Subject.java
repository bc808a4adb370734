package io.agentbus.bench;

import java.util.LinkedHashMap;
import java.util.Map;
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

  /**
   * @return the process the runtime under test runs in when it is not this one (the
   *     {@code serve} subject), or null: its CPU is then the runtime's, and this process' the
   *     load driver's
   */
  default ProcessHandle runtimeProcess() {
    return null;
  }

  /**
   * @return the processes the runtime under test runs in, by name, when it is not this one: the
   *     {@code serve} process, or every node of a cluster ({@link ClusterServeSubject}); their CPU
   *     is summed as the runtime's. Empty: the runtime is this process
   */
  default Map<String, ProcessHandle> runtimeProcesses() {
    Map<String, ProcessHandle> all = new LinkedHashMap<>();
    ProcessHandle p = runtimeProcess();
    if (p != null) {
      all.put("serve", p);
    }
    return all;
  }

  /** @return whether the subject keeps its conversations in the local PostgreSQL (whose CPU is then reported) */
  default boolean usesPostgres() {
    return false;
  }

  /** @return the runtime's live heap after full collections (by default this process') */
  default long liveHeapBytes() throws Exception {
    return ProcessStats.liveHeapBytes();
  }

  /** @return model round trips per conversation (for the ceiling, which makes only these) */
  default int modelCallsPerConversation() {
    return 2;
  }
}
