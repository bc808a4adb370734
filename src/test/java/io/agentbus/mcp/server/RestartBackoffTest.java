package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RestartBackoffTest {

  @Test
  void doublesWithJitterAndStaysUnderTheCap() {
    RestartBackoff b = new RestartBackoff(100, 1_000);
    for (int i = 0; i < 200; i++) {
      long first = b.delayMs(1);
      long third = b.delayMs(3);
      long capped = b.delayMs(50);
      assertTrue(first >= 75 && first <= 100, "first " + first);
      assertTrue(third >= 300 && third <= 400, "third " + third);
      assertTrue(capped >= 750 && capped <= 1_000, "capped " + capped);
    }
    assertTrue(b.delayMs(Integer.MAX_VALUE) <= 1_000);
  }
}
