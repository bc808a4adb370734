package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class ToolCatalogTest {

  private static CatalogSnapshot snapshot(long version) {
    return CatalogSnapshot.build(version, Map.of("s", List.of(new JsonObject().put("name", "t" + version)
      .put("inputSchema", new JsonObject().put("type", "object")))), null);
  }

  @Test
  void keepsTheLastVersionsOnly() {
    ToolCatalog catalog = new ToolCatalog(3);
    assertEquals(0, catalog.current().version());
    for (long v = 1; v <= 5; v++) {
      catalog.publish(snapshot(v));
    }
    assertEquals(5, catalog.current().version());
    assertEquals(4, catalog.version(4).version());
    assertEquals(3, catalog.version(3).version());
    assertNull(catalog.version(2));
    assertNull(catalog.version(0));
  }

  @Test
  void oneSharedCatalogPerVertx(Vertx vertx) {
    assertSame(ToolCatalog.shared(vertx), ToolCatalog.shared(vertx));
  }
}
