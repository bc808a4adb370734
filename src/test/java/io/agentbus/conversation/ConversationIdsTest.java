package io.agentbus.conversation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Addresses;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ids: the owning shard, time first (so indexes grow at one end), 80 random bits after it. */
class ConversationIdsTest {

  @Test
  void anIdNamesItsShardAndHas32HexDigits() {
    String id = ConversationIds.newId(3);
    assertTrue(id.matches("c3-[0-9a-f]{32}"), id);
    assertEquals(3, ConversationIds.shardOf(id));
    assertEquals(Addresses.conversationShard(3), ConversationIds.address(id));
  }

  @Test
  void laterIdsOfAShardSortAfterEarlierOnes() {
    long t = 1_764_547_200_000L;
    String earlier = ConversationIds.newId(0, t);
    String later = ConversationIds.newId(0, t + 1);
    String muchLater = ConversationIds.newId(0, t + 86_400_000L * 365);
    assertTrue(earlier.compareTo(later) < 0, earlier + " " + later);
    assertTrue(later.compareTo(muchLater) < 0, later + " " + muchLater);
    assertEquals(Long.toHexString(t), earlier.substring(3, 15).replaceFirst("^0+", ""));
  }

  @Test
  void idsOfTheSameMillisecondDifferInTheirRandomPart() {
    long t = System.currentTimeMillis();
    Set<String> randomParts = new HashSet<>();
    for (int i = 0; i < 1_000; i++) {
      String id = ConversationIds.newId(1, t);
      assertEquals(ConversationIds.newId(1, t).substring(0, 15), id.substring(0, 15));
      randomParts.add(id.substring(15));
    }
    assertEquals(1_000, randomParts.size());
    assertNotEquals(ConversationIds.newId(1, t), ConversationIds.newId(1, t));
  }
}
