package io.agentbus.catalog;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Model-side tool names: {@code mcp__<server>__<tool>}, sanitised to {@code [a-zA-Z0-9_-]}
 * and at most {@value #MAX_LENGTH} characters (the Anthropic and OpenAI limits).
 *
 * <p>When sanitising or truncating makes names equal, every name of the clash that had to be
 * altered gets a short suffix {@code _<hex>} computed from (server, tool); a name that needed
 * no change keeps it (unless two unaltered names clash, as {@code a}+{@code b__c} and
 * {@code a__b}+{@code c} do: then both get a suffix). The result depends only on the set of (server, tool) pairs, never on
 * their order, so the same inputs give the same names on every run.
 */
public final class ToolNames {

  /** The longest name both providers accept. */
  public static final int MAX_LENGTH = 64;
  /** The prefix of every MCP tool on the model side. */
  public static final String PREFIX = "mcp__";
  /** What a valid model-side name looks like. */
  public static final Pattern VALID = Pattern.compile("[a-zA-Z0-9_-]{1," + MAX_LENGTH + "}");

  private static final Pattern INVALID_CHAR = Pattern.compile("[^a-zA-Z0-9_-]");
  private static final int HASH_HEX = 6;

  /** One MCP tool to name. */
  public record Key(String server, String tool) {
  }

  private ToolNames() {
  }

  /** @return the name before collision handling, and whether it differs from the raw form */
  static String candidate(String server, String tool) {
    String name = PREFIX + sanitise(server) + "__" + sanitise(tool);
    return name.length() > MAX_LENGTH ? name.substring(0, MAX_LENGTH) : name;
  }

  private static boolean altered(Key key, String candidate) {
    return !candidate.equals(PREFIX + key.server() + "__" + key.tool());
  }

  /** Replaces every character outside {@code [a-zA-Z0-9_-]} with {@code _}. */
  public static String sanitise(String s) {
    String out = INVALID_CHAR.matcher(s).replaceAll("_");
    return out.isEmpty() ? "_" : out;
  }

  /**
   * Names every tool.
   *
   * @param keys the (server, tool) pairs; duplicates are ignored
   * @return model-side name for each key, in the order given
   */
  public static Map<Key, String> assign(List<Key> keys) {
    Map<String, List<Key>> byCandidate = new HashMap<>();
    Map<Key, String> candidates = new LinkedHashMap<>();
    for (Key key : keys) {
      if (!candidates.containsKey(key)) {
        String c = candidate(key.server(), key.tool());
        candidates.put(key, c);
        byCandidate.computeIfAbsent(c, x -> new ArrayList<>()).add(key);
      }
    }
    Map<Key, String> names = new LinkedHashMap<>();
    Set<String> taken = new HashSet<>();
    List<Key> suffixed = new ArrayList<>();
    candidates.forEach((key, c) -> {
      List<Key> group = byCandidate.get(c);
      // In a clash only a sole unaltered name keeps its form ("a" + "b__c" vs "a__b" + "c": both lose it).
      boolean keeps = group.size() == 1
        || (!altered(key, c) && group.stream().filter(k -> !altered(k, c)).count() == 1);
      if (!keeps) {
        suffixed.add(key);
      } else {
        names.put(key, c);
        taken.add(c);
      }
    });
    // Suffixes are unique with overwhelming probability; a longer hash settles the rest.
    suffixed.sort((a, b) -> a.server().equals(b.server()) ? a.tool().compareTo(b.tool()) : a.server().compareTo(b.server()));
    for (Key key : suffixed) {
      String base = candidates.get(key);
      String hash = hash(key);
      for (int len = HASH_HEX; ; len += 2) {
        String suffix = "_" + hash.substring(0, Math.min(len, hash.length()));
        String name = base.substring(0, Math.min(base.length(), MAX_LENGTH - suffix.length())) + suffix;
        if (taken.add(name) || len >= hash.length()) {
          names.put(key, name);
          break;
        }
      }
    }
    Map<Key, String> ordered = new LinkedHashMap<>();
    candidates.keySet().forEach(k -> ordered.put(k, names.get(k)));
    return ordered;
  }

  private static String hash(Key key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
        .digest((key.server() + '\u0000' + key.tool()).getBytes(StandardCharsets.UTF_8));
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < 8; i++) {
        sb.append(Character.forDigit((digest[i] >> 4) & 0xf, 16)).append(Character.forDigit(digest[i] & 0xf, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
