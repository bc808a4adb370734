package io.agentbus.mcp.server;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ToolFilterTest {

  @Test
  void emptyListsAllowEverything() {
    assertTrue(new ToolFilter(List.of(), List.of()).allows("anything.at.all"));
  }

  @Test
  void globsMatchWholeNamesAndDisableWins() {
    ToolFilter f = new ToolFilter(List.of("read_*", "echo", "*_file"), List.of("read_media*"));
    assertTrue(f.allows("read_text_file"));
    assertTrue(f.allows("echo"));
    assertTrue(f.allows("write_file"));
    assertFalse(f.allows("echo2"));
    assertFalse(f.allows("read_media_file"));
    assertFalse(f.allows("list_directory"));
  }

  @Test
  void regexCharactersInNamesAreLiteral() {
    ToolFilter f = new ToolFilter(List.of("a.b", "x+*"), List.of());
    assertTrue(f.allows("a.b"));
    assertFalse(f.allows("axb"));
    assertTrue(f.allows("x+y"));
    assertFalse(f.allows("xxy"));
  }
}
