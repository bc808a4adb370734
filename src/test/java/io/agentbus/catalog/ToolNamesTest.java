package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.catalog.ToolNames.Key;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ToolNamesTest {

  private static Map<Key, String> assign(Key... keys) {
    return ToolNames.assign(List.of(keys));
  }

  @Test
  void plainNamesArePrefixedAndKept() {
    Map<Key, String> names = assign(new Key("everything", "get-tiny-image"), new Key("fs", "read_text_file"));
    assertEquals("mcp__everything__get-tiny-image", names.get(new Key("everything", "get-tiny-image")));
    assertEquals("mcp__fs__read_text_file", names.get(new Key("fs", "read_text_file")));
  }

  @Test
  void dotsAndOtherCharactersAreReplaced() {
    Map<Key, String> names = assign(new Key("s", "admin.tools.list"), new Key("s", "weird name/ü"));
    assertEquals("mcp__s__admin_tools_list", names.get(new Key("s", "admin.tools.list")));
    assertEquals("mcp__s__weird_name__", names.get(new Key("s", "weird name/ü")));
    names.values().forEach(n -> assertTrue(ToolNames.VALID.matcher(n).matches(), n));
  }

  @Test
  void aSanitisedClashGetsAHashWhileTheExactNameStays() {
    Key dotted = new Key("s", "a.b");
    Key underscored = new Key("s", "a_b");
    Map<Key, String> names = assign(dotted, underscored);
    assertEquals("mcp__s__a_b", names.get(underscored));
    assertTrue(names.get(dotted).matches("mcp__s__a_b_[0-9a-f]{6}"), names.get(dotted));
  }

  @Test
  void twoAlteredNamesThatClashBothGetDistinctSuffixes() {
    Key a = new Key("s", "a.b");
    Key b = new Key("s", "a/b");
    Map<Key, String> names = assign(a, b);
    assertNotEquals(names.get(a), names.get(b));
    assertTrue(names.get(a).startsWith("mcp__s__a_b_"));
    assertTrue(names.get(b).startsWith("mcp__s__a_b_"));
  }

  @Test
  void serverAndToolSplitAmbiguityIsResolved() {
    Key a = new Key("a", "b__c");
    Key b = new Key("a__b", "c");
    Map<Key, String> names = assign(a, b);
    assertNotEquals(names.get(a), names.get(b));
  }

  @Test
  void longNamesAreTruncatedTo64AndKeptApart() {
    String longTool = "x".repeat(100);
    Key a = new Key("server", longTool + "1");
    Key b = new Key("server", longTool + "2");
    Key c = new Key("server", "y".repeat(60));
    Map<Key, String> names = assign(a, b, c);
    names.values().forEach(n -> assertTrue(n.length() <= ToolNames.MAX_LENGTH && ToolNames.VALID.matcher(n).matches(), n));
    assertEquals(3, new HashSet<>(names.values()).size());
    assertEquals(64, names.get(c).length());
    assertTrue(names.get(a).matches("mcp__server__x+_[0-9a-f]{6}"), names.get(a));
  }

  @Test
  void namesDoNotDependOnInputOrder() {
    List<Key> keys = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      keys.add(new Key("srv", "tool." + i));
      keys.add(new Key("srv", "tool_" + i));
      keys.add(new Key("srv", "t".repeat(70) + i % 3 + "." + i));
    }
    Map<Key, String> first = ToolNames.assign(keys);
    assertEquals(keys.size(), new HashSet<>(first.values()).size());
    for (int round = 0; round < 5; round++) {
      List<Key> shuffled = new ArrayList<>(keys);
      Collections.shuffle(shuffled, new Random(round));
      Map<Key, String> again = ToolNames.assign(shuffled);
      for (Key k : keys) {
        assertEquals(first.get(k), again.get(k), k.toString());
      }
    }
  }
}
