package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The connection settings of {@link HttpApiOptions}: on by default, and the derived limit. */
class HttpApiOptionsConnectionsTest {

  @Test
  void theLimitIsHalfTheFileDescriptorLimit() {
    assertEquals(150, HttpApiOptions.maxConnectionsFor(300));
    assertEquals(10_000, HttpApiOptions.maxConnectionsFor(20_000));
    assertEquals(524_288, HttpApiOptions.maxConnectionsFor(1_048_576));
    assertEquals(HttpApiOptions.MIN_DEFAULT_MAX_CONNECTIONS, HttpApiOptions.maxConnectionsFor(20));
    assertEquals(HttpApiOptions.UNKNOWN_FD_LIMIT_MAX_CONNECTIONS, HttpApiOptions.maxConnectionsFor(-1));
    assertEquals(Integer.MAX_VALUE, HttpApiOptions.maxConnectionsFor(Long.MAX_VALUE));
  }

  @Test
  void theDefaultsAreOnAndTheLimitStaysBelowThisProcesssDescriptorLimit() {
    HttpApiOptions defaults = new HttpApiOptions(new JsonObject());
    assertEquals(10_000, defaults.getHeaderTimeoutMs());
    assertEquals(60_000, defaults.getIdleTimeoutMs());
    assertEquals(HttpApiOptions.DEFAULT_MAX_CONNECTIONS, defaults.getMaxConnections());
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      assertTrue(defaults.getMaxConnections() < unix.getMaxFileDescriptorCount(), String.valueOf(defaults.getMaxConnections()));
    }
  }

  @Test
  void theSettingsRoundTripThroughJsonAndShowInToString() {
    HttpApiOptions o = new HttpApiOptions().setHeaderTimeoutMs(1234).setIdleTimeoutMs(5678).setMaxConnections(42);
    HttpApiOptions back = new HttpApiOptions(o.toJson());
    assertEquals(1234, back.getHeaderTimeoutMs());
    assertEquals(5678, back.getIdleTimeoutMs());
    assertEquals(42, back.getMaxConnections());
    assertEquals(o.toJson(), new HttpApiOptions(o).toJson());
    assertTrue(o.toString().contains("headerTimeoutMs=1234, idleTimeoutMs=5678, maxConnections=42"), o.toString());
  }

  @Test
  void theSettersRefuseZero() {
    assertEquals("headerTimeoutMs must be >= 1",
      assertThrows(IllegalArgumentException.class, () -> new HttpApiOptions().setHeaderTimeoutMs(0)).getMessage());
    assertEquals("idleTimeoutMs must be >= 1",
      assertThrows(IllegalArgumentException.class, () -> new HttpApiOptions().setIdleTimeoutMs(0)).getMessage());
    assertEquals("maxConnections must be >= 1",
      assertThrows(IllegalArgumentException.class, () -> new HttpApiOptions().setMaxConnections(0)).getMessage());
  }
}
