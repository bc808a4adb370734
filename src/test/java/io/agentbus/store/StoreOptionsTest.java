package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class StoreOptionsTest {

  @Test
  void defaultsAreAnSqliteFileUnderData() {
    StoreOptions o = new StoreOptions(new JsonObject());
    assertEquals(StoreOptions.Type.SQLITE, o.getType());
    assertEquals("data/agentbus.db", o.getPath());
    assertEquals(StoreOptions.DEFAULT_POOL_SIZE, o.getPoolSize());
    assertEquals(StoreOptions.Synchronous.NORMAL, o.getSynchronous());
    assertEquals(new StoreOptions().toJson(), o.toJson());
  }

  @Test
  void jsonRoundTrips() {
    JsonObject json = new JsonObject().put("type", "postgres").put("uri", "postgresql://a:b@h:5432/d")
      .put("schema", "agentbus").put("poolSize", 8).put("connectTimeoutMs", 1500).put("requestTimeoutMs", 2500)
      .put("maxPendingRequests", 50).put("path", "x.db").put("synchronous", "normal");
    StoreOptions o = new StoreOptions(json);
    assertEquals(StoreOptions.Type.POSTGRES, o.getType());
    assertEquals(8, o.getPoolSize());
    assertEquals(StoreOptions.Synchronous.NORMAL, o.getSynchronous());
    assertEquals(json, o.toJson());
    assertEquals(json, new StoreOptions(o).toJson());
  }

  @Test
  void wrongValuesNameTheField() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new StoreOptions(new JsonObject().put("type", "mysql")))
      .getMessage().contains("'type' must be one of memory, sqlite, postgres"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new StoreOptions(new JsonObject().put("poolSize", 0)))
      .getMessage().contains("'poolSize'"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> new StoreOptions(new JsonObject().put("poolSize", 1.5)))
      .getMessage().contains("'poolSize'"));
    assertThrows(IllegalArgumentException.class, () -> new StoreOptions().setSchema("Robert'); DROP"));
    assertThrows(IllegalArgumentException.class, () -> new StoreOptions().setPath(" "));
    assertThrows(IllegalArgumentException.class, () -> new StoreOptions().setRequestTimeoutMs(0));
    IllegalArgumentException uri = assertThrows(IllegalArgumentException.class,
      () -> new StoreOptions(new JsonObject().put("uri", "mysql://u:hunter2@h/d")));
    assertFalse(uri.getMessage().contains("hunter2"));
    IllegalArgumentException notString = assertThrows(IllegalArgumentException.class,
      () -> new StoreOptions(new JsonObject().put("uri", new JsonObject())));
    assertTrue(notString.getMessage().contains("'uri' must be a string"));
  }

  @Test
  void toStringLeavesThePasswordOut() {
    StoreOptions o = new StoreOptions().setType(StoreOptions.Type.POSTGRES).setUri("postgresql://agent:hunter2@db/agentbus");
    assertFalse(o.toString().contains("hunter2"), o.toString());
    assertTrue(o.toString().contains("postgresql://agent@db/agentbus"), o.toString());
  }
}
