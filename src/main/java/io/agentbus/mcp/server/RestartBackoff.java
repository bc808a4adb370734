package io.agentbus.mcp.server;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Restart delays: {@code initial * 2^(failures-1)} capped at {@code max}, times a jitter
 * factor in (0.75, 1] so that many servers failing together do not restart in lockstep.
 */
final class RestartBackoff {

  private final long initialMs;
  private final long maxMs;

  RestartBackoff(long initialMs, long maxMs) {
    this.initialMs = initialMs;
    this.maxMs = Math.max(initialMs, maxMs);
  }

  long delayMs(int consecutiveFailures) {
    int shift = Math.min(Math.max(consecutiveFailures - 1, 0), 30);
    long base = Math.min(maxMs, initialMs << shift);
    double jitter = 1.0 - ThreadLocalRandom.current().nextDouble() * 0.25;
    return Math.max(1, (long) (base * jitter));
  }
}
