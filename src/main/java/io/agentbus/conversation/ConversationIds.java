package io.agentbus.conversation;

import io.agentbus.bus.Addresses;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Conversation ids: {@code c<shard>-<128 random bits in hex>}. The shard names the
 * conversation verticle instance that owns the conversation, so any caller can address it
 * directly ({@link #address(String)}); the random part makes ids unguessable.
 */
public final class ConversationIds {

  private static final SecureRandom RANDOM = new SecureRandom();

  private ConversationIds() {
  }

  static String newId(int shard) {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return "c" + shard + "-" + HexFormat.of().formatHex(bytes);
  }

  /** @return the shard of a well-formed id, or {@code -1} */
  public static int shardOf(String id) {
    if (id == null || id.length() < 4 || id.charAt(0) != 'c') {
      return -1;
    }
    int dash = id.indexOf('-');
    if (dash < 2 || dash > 7) {
      return -1;
    }
    try {
      return Integer.parseInt(id.substring(1, dash));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** @return the bus address of the instance that owns the conversation */
  public static String address(String id) {
    int shard = shardOf(id);
    return shard < 0 ? Addresses.CONVERSATION : Addresses.conversationShard(shard);
  }
}
