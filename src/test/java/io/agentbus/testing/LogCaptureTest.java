package io.agentbus.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A capture holds what was logged while it was open, from any thread, at every level. */
class LogCaptureTest {

  private static final Logger LOG = LoggerFactory.getLogger(LogCaptureTest.class);

  @Test
  void onlyWhileOpenFromAnyThreadAtEveryLevel() throws Exception {
    LOG.warn("before-open-7d1");
    LogCapture.Lines outer;
    try (LogCapture.Lines logs = LogCapture.capture()) {
      outer = logs;
      LOG.info("inside {}", "info-7d1");
      LOG.debug("inside {} {} {}", "debug-7d1", 2, 3);
      LOG.trace("inside trace-7d1");
      LOG.warn("failed", new IllegalStateException("cause-7d1"));
      Thread t = new Thread(() -> LOG.warn("from another thread-7d1"));
      t.start();
      t.join();
      try (LogCapture.Lines inner = LogCapture.capture()) {
        LOG.info("nested-7d1");
        assertTrue(inner.contains("nested-7d1"), inner.lines()::toString);
        assertFalse(inner.contains("info-7d1"), "a line logged before the inner capture opened");
      }
      assertFalse(logs.contains("before-open-7d1"), "a line logged before the capture opened");
      assertTrue(logs.lines().contains("INFO " + LogCaptureTest.class.getName() + " inside info-7d1"), logs.lines()::toString);
      assertTrue(logs.contains("DEBUG " + LogCaptureTest.class.getName() + " inside debug-7d1 2 3"), logs.lines()::toString);
      assertTrue(logs.contains("TRACE " + LogCaptureTest.class.getName() + " inside trace-7d1"), logs.lines()::toString);
      assertTrue(logs.contains("failed | java.lang.IllegalStateException: cause-7d1"), logs.lines()::toString);
      assertTrue(logs.contains("from another thread-7d1"));
      assertTrue(logs.contains("nested-7d1"));
    }
    LOG.warn("after-close-7d1");
    assertFalse(outer.contains("after-close-7d1"), "a line logged after the capture closed");
    assertEquals(1, outer.count("inside info-7d1"), "the lines stay readable after close");
  }
}
