package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineFramerTest {

  private final List<String> lines = new ArrayList<>();
  private final List<Long> oversized = new ArrayList<>();
  private final LineFramer framer = new LineFramer(10, b -> lines.add(b.toString()), oversized::add);

  private void feed(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    framer.handle(b, b.length);
  }

  @Test
  void splitsAcrossChunksAndStripsCarriageReturns() {
    feed("ab");
    feed("c\nde\r\n\nf");
    feed("g\n");
    assertEquals(List.of("abc", "de", "fg"), lines);
  }

  @Test
  void byteByByteGivesTheSameLines() {
    for (char c : "one\ntwo\r\nthree\n".toCharArray()) {
      feed(String.valueOf(c));
    }
    assertEquals(List.of("one", "two", "three"), lines);
  }

  @Test
  void oversizedLinesAreDroppedWholeAndReportedWithTheirSize() {
    feed("ok\n0123456");
    feed("789abcdef\nnext\n");
    feed("01234567890123456789");
    feed("xx\nlast\n");
    assertEquals(List.of("ok", "next", "last"), lines);
    assertEquals(List.of(16L, 22L), oversized);
  }

  @Test
  void aLineOfExactlyTheLimitPasses() {
    feed("0123456789\n");
    assertEquals(List.of("0123456789"), lines);
  }
}
