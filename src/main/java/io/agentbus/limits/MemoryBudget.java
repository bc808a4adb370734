package io.agentbus.limits;

/**
 * How much in-flight work the heap holds: the built-in defaults of the admission limits
 * ({@code http.maxInFlightTurns}, the conversation service's {@code maxActiveTurns} and
 * {@code maxConversations}, the model pool and the MCP call queues) derive from it, so that a
 * bigger heap ({@code -Xmx}) admits more without any configuration.
 *
 * <p>The formula: half of {@link Runtime#maxMemory()} is planned for in-flight work, at
 * {@value #BYTES_PER_TURN} bytes per in-flight turn (its conversation, history, model reply
 * and tool calls; about 10-22 KB were measured) and {@value #BYTES_PER_QUEUED_CALL} bytes
 * per tool call waiting for a slot; never fewer than {@value #MIN_TURNS} turns and
 * {@value #MIN_QUEUED_CALLS} queued calls. A 6 GiB heap (the JVM's default on a 24 GiB
 * machine) admits 98,304 turns.
 */
public final class MemoryBudget {

  /** Share of the maximum heap planned for in-flight work. */
  public static final double HEAP_SHARE = 0.5;
  /** Heap planned per in-flight turn. */
  public static final long BYTES_PER_TURN = 32 * 1024;
  /** Heap planned per tool call waiting for a call slot. */
  public static final long BYTES_PER_QUEUED_CALL = 4 * 1024;
  /** The turn budget of a small heap. */
  public static final int MIN_TURNS = 1000;
  /** The queued-call budget of a small heap. */
  public static final int MIN_QUEUED_CALLS = 10_000;

  private MemoryBudget() {
  }

  /** @return in-flight turns this JVM's maximum heap holds */
  public static int turns() {
    return turns(Runtime.getRuntime().maxMemory());
  }

  /**
   * @param maxMemoryBytes the maximum heap ({@link Long#MAX_VALUE}: no limit)
   * @return {@code maxMemoryBytes * HEAP_SHARE / BYTES_PER_TURN}, at least {@link #MIN_TURNS}
   */
  public static int turns(long maxMemoryBytes) {
    return slots(maxMemoryBytes, BYTES_PER_TURN, MIN_TURNS);
  }

  /** @return tool calls that may wait for a slot on one MCP server with this JVM's maximum heap */
  public static int queuedCalls() {
    return queuedCalls(Runtime.getRuntime().maxMemory());
  }

  /**
   * @param maxMemoryBytes the maximum heap ({@link Long#MAX_VALUE}: no limit)
   * @return {@code maxMemoryBytes * HEAP_SHARE / BYTES_PER_QUEUED_CALL}, at least {@link #MIN_QUEUED_CALLS}
   */
  public static int queuedCalls(long maxMemoryBytes) {
    return slots(maxMemoryBytes, BYTES_PER_QUEUED_CALL, MIN_QUEUED_CALLS);
  }

  private static int slots(long maxMemoryBytes, long bytesPerSlot, int floor) {
    long n = (long) (maxMemoryBytes * HEAP_SHARE) / bytesPerSlot;
    return (int) Math.min(Integer.MAX_VALUE, Math.max(floor, n));
  }
}
