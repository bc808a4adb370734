package io.agentbus.conversation;

import io.agentbus.bus.Addresses;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Conversation ids: {@code c<shard>-<32 hex digits>}: the creation time in milliseconds (48
 * bits, as in a UUIDv7) and 80 random bits. The shard names the conversation verticle
 * instance that owns the conversation, so any caller can address it directly ({@link
 * #address(String)}); the random part makes ids unguessable; the time first makes a shard's
 * ids grow with time, so the store's indexes on them take new rows at one end instead of at
 * random pages (fewer pages written per commit, a hot set that stays small as tables grow).
 */
public final class ConversationIds {

  private static final SecureRandom RANDOM = new SecureRandom();
  /** The leading bytes that hold the creation time. */
  private static final int TIME_BYTES = 6;

  private ConversationIds() {
  }

  static String newId(int shard) {
    return newId(shard, System.currentTimeMillis());
  }

  static String newId(int shard, long createdAtMs) {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    long ms = createdAtMs;
    for (int i = TIME_BYTES - 1; i >= 0; i--) {
      bytes[i] = (byte) ms;
      ms >>>= 8;
    }
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
