package io.agentbus.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.config.AgentConfig;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.http.HttpApiOptions;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The admission limits derive from the heap unless a setting says otherwise. */
class MemoryBudgetTest {

  private static final long GIB = 1024L * 1024 * 1024;

  @Test
  void turnsAreHalfTheHeapAt32KibEachWithAFloor() {
    assertEquals(98_304, MemoryBudget.turns(6 * GIB));
    assertEquals(16_384, MemoryBudget.turns(GIB));
    assertEquals((int) (3_000_000_000L / 2 / (32 * 1024)), MemoryBudget.turns(3_000_000_000L));
    assertEquals(1_024, MemoryBudget.turns(64L * 1024 * 1024));
    assertEquals(MemoryBudget.MIN_TURNS, MemoryBudget.turns(32L * 1024 * 1024));
    assertEquals(Integer.MAX_VALUE, MemoryBudget.turns(Long.MAX_VALUE));
    assertEquals(MemoryBudget.turns(Runtime.getRuntime().maxMemory()), MemoryBudget.turns());
  }

  @Test
  void queuedCallsAreHalfTheHeapAt4KibEachWithAFloor() {
    assertEquals(786_432, MemoryBudget.queuedCalls(6 * GIB));
    assertEquals(MemoryBudget.MIN_QUEUED_CALLS, MemoryBudget.queuedCalls(32L * 1024 * 1024));
    assertEquals(MemoryBudget.queuedCalls(Runtime.getRuntime().maxMemory()), MemoryBudget.queuedCalls());
  }

  @Test
  void httpAdmissionDerivesFromTheHeapAndASettingOverridesIt() {
    assertEquals(MemoryBudget.turns(), HttpApiOptions.DEFAULT_MAX_IN_FLIGHT_TURNS);
    assertEquals(MemoryBudget.turns(), new HttpApiOptions().getMaxInFlightTurns());
    assertEquals(MemoryBudget.turns(), new HttpApiOptions(new JsonObject()).getMaxInFlightTurns());
    assertTrue(new HttpApiOptions().getMaxInFlightTurns() >= MemoryBudget.MIN_TURNS);
    assertEquals(7, new HttpApiOptions(new JsonObject().put("maxInFlightTurns", 7)).getMaxInFlightTurns());

    AgentConfig derived = AgentConfig.fromJson(new JsonObject(), Map.of());
    assertEquals(MemoryBudget.turns(), new HttpApiOptions(derived.http()).getMaxInFlightTurns());
    AgentConfig explicit = AgentConfig.fromJson(new JsonObject("{\"http\": {\"maxInFlightTurns\": 250000}}"), Map.of());
    assertEquals(250_000, new HttpApiOptions(explicit.http()).getMaxInFlightTurns());
  }

  @Test
  void conversationCapsDeriveFromTheHeapAndSettingsOverrideThem() {
    ConversationOptions defaults = AgentConfig.fromJson(new JsonObject(), Map.of()).conversation();
    assertEquals(MemoryBudget.turns(), defaults.getMaxActiveTurns());
    assertEquals(MemoryBudget.turns(), defaults.getMaxConversations());
    assertEquals(defaults.getMaxActiveTurns(), new ConversationOptions(defaults.toJson()).getMaxActiveTurns());

    ConversationOptions set = AgentConfig.fromJson(
      new JsonObject("{\"loop\": {\"maxActiveTurns\": 12}, \"maxConversations\": 34}"), Map.of()).conversation();
    assertEquals(12, set.getMaxActiveTurns());
    assertEquals(34, set.getMaxConversations());
  }
}
