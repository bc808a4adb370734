package io.agentbus.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private final List<SseEvent> events = new ArrayList<>();
  private final List<Throwable> errors = new ArrayList<>();

  private SseParser parser(int max) {
    return SseParser.create(max).handler(events::add).exceptionHandler(errors::add);
  }

  /** Parses the input whole, byte by byte, and at every 2-way split; all must agree. */
  private List<SseEvent> parseAllSplits(String input) {
    byte[] bytes = input.getBytes(StandardCharsets.UTF_8);
    SseParser whole = parser(SseParser.DEFAULT_MAX_EVENT_SIZE);
    whole.handle(Buffer.buffer(bytes));
    List<SseEvent> expected = new ArrayList<>(events);
    events.clear();

    SseParser single = parser(SseParser.DEFAULT_MAX_EVENT_SIZE);
    for (byte b : bytes) {
      single.handle(Buffer.buffer(new byte[] {b}));
    }
    assertEquals(expected, events, "byte-by-byte");
    events.clear();

    for (int split = 0; split <= bytes.length; split++) {
      SseParser p = parser(SseParser.DEFAULT_MAX_EVENT_SIZE);
      p.handle(Buffer.buffer(Arrays.copyOfRange(bytes, 0, split)));
      p.handle(Buffer.buffer(Arrays.copyOfRange(bytes, split, bytes.length)));
      assertEquals(expected, events, "split at " + split);
      events.clear();
    }
    assertTrue(errors.isEmpty(), errors::toString);
    return expected;
  }

  @Test
  void simpleEventsWithAllLineEndings() {
    for (String nl : List.of("\n", "\r\n", "\r")) {
      List<SseEvent> got = parseAllSplits(
          "event: message_start" + nl + "data: {\"a\":1}" + nl + nl + "data: two" + nl + nl);
      assertEquals(List.of(
          new SseEvent(null, "message_start", "{\"a\":1}", null),
          new SseEvent(null, "message", "two", null)), got, "line ending " + nl.replace("\r", "CR").replace("\n", "LF"));
    }
  }

  @Test
  void crlfSplitBetweenChunksIsOneLineEnd() {
    SseParser p = parser(1024);
    p.handle(Buffer.buffer("data: a\r"));
    p.handle(Buffer.buffer("\ndata: b\r"));
    p.handle(Buffer.buffer("\n\r"));
    p.handle(Buffer.buffer("\n"));
    assertEquals(List.of(new SseEvent(null, "message", "a\nb", null)), events);
  }

  @Test
  void multiLineDataJoinedWithNewline() {
    List<SseEvent> got = parseAllSplits("data: line1\ndata:line2\ndata\ndata:  indented\n\n");
    assertEquals(List.of(new SseEvent(null, "message", "line1\nline2\n\n indented", null)), got);
  }

  @Test
  void commentsAndUnknownFieldsAreIgnored() {
    List<SseEvent> got = parseAllSplits(": keep-alive\n:\nfoo: bar\ndata: x\n: between\n\n: only comments\n\n");
    assertEquals(List.of(new SseEvent(null, "message", "x", null)), got);
  }

  @Test
  void idIsTrackedAndInheritedAndEmptyDataStillDispatched() {
    SseParser p = parser(1024);
    p.handle(Buffer.buffer("id: 42\ndata:\n\n" + "id: 43\n\n" + "data: next\n\n" + "id: bad\0id\ndata: z\n\n"));
    assertEquals(List.of(
        new SseEvent("42", "message", "", null),
        new SseEvent("43", "message", "", null),
        new SseEvent("43", "message", "next", null),
        new SseEvent("43", "message", "z", null)), events);
    assertEquals("43", p.lastEventId());
    assertTrue(events.get(1).isEmpty());
  }

  @Test
  void emptyIdResetsLastEventId() {
    SseParser p = parser(1024).lastEventId("seed");
    p.handle(Buffer.buffer("data: a\n\nid\ndata: b\n\n"));
    assertEquals("seed", events.get(0).id());
    assertEquals("", events.get(1).id());
    assertEquals("", p.lastEventId());
  }

  @Test
  void retryOnlyWithDigits() {
    List<SseEvent> got = parseAllSplits("retry: 1500\ndata: a\n\nretry: 15x\ndata: b\n\nretry:\ndata: c\n\n");
    assertEquals(List.of(
        new SseEvent(null, "message", "a", 1500L),
        new SseEvent(null, "message", "b", null),
        new SseEvent(null, "message", "c", null)), got);
  }

  @Test
  void fieldWithoutColonAndOnlyOneSpaceStripped() {
    List<SseEvent> got = parseAllSplits("event\ndata:   three spaces\n\n");
    assertEquals(List.of(new SseEvent(null, "message", "  three spaces", null)), got);
  }

  @Test
  void multiByteUtf8SplitAcrossChunks() {
    String text = "data: héllo → 世界 🎉\n\n";
    List<SseEvent> got = parseAllSplits(text);
    assertEquals("héllo → 世界 🎉", got.get(0).data());
  }

  @Test
  void leadingBomIsSkipped() {
    List<SseEvent> got = parseAllSplits("\uFEFFdata: a\n\n");
    assertEquals(List.of(new SseEvent(null, "message", "a", null)), got);
  }

  @Test
  void blankLinesWithoutFieldsDispatchNothing() {
    assertEquals(List.of(), parseAllSplits("\n\n\r\n\r\r\n"));
  }

  @Test
  void incompleteEventAtEndIsDiscarded() {
    SseParser p = parser(1024);
    p.handle(Buffer.buffer("data: complete\n\nid: 7\ndata: partial\n"));
    p.end();
    assertEquals(List.of(new SseEvent(null, "message", "complete", null)), events);
    assertEquals("7", p.lastEventId());
  }

  @Test
  void oversizedEventIsReportedAndSkippedThenParsingResumes() {
    SseParser p = parser(64);
    p.handle(Buffer.buffer("data: small\n\n"));
    // one oversized event spread over many chunks and lines, byte by byte
    String big = "id: 9\nevent: big\n" + "data: 0123456789\n".repeat(20) + "\n";
    for (byte b : big.getBytes(StandardCharsets.UTF_8)) {
      p.handle(Buffer.buffer(new byte[] {b}));
    }
    p.handle(Buffer.buffer("data: after\n\n"));
    assertEquals(List.of(
        new SseEvent(null, "message", "small", null),
        new SseEvent("9", "message", "after", null)), events);
    assertEquals(1, errors.size());
    SseEventTooLargeException e = assertInstanceOf(SseEventTooLargeException.class, errors.get(0));
    assertEquals(64, e.limit());
    assertTrue(e.getMessage().contains("64 bytes"), e.getMessage());
  }

  @Test
  void oversizedSingleLineIsSkipped() {
    SseParser p = parser(100);
    p.handle(Buffer.buffer("data: " + "x".repeat(10_000)));
    p.handle(Buffer.buffer("y".repeat(10_000) + "\n\ndata: ok\n\n"));
    assertEquals(List.of(new SseEvent(null, "message", "ok", null)), events);
    assertEquals(1, errors.size());
  }

  @Test
  void longCommentsDoNotCountTowardsTheLimit() {
    SseParser p = parser(32);
    p.handle(Buffer.buffer("data: a\n\n: " + "c".repeat(1000) + "\ndata: b\n\n"));
    assertEquals(2, events.size());
    assertTrue(errors.isEmpty());
  }

  @Test
  void handlerFailureIsReportedAndParsingContinues() {
    List<String> seen = new ArrayList<>();
    SseParser p = SseParser.create().exceptionHandler(errors::add).handler(ev -> {
      seen.add(ev.data());
      if (ev.data().equals("boom")) {
        throw new IllegalStateException("handler failed");
      }
    });
    p.handle(Buffer.buffer("data: boom\n\ndata: fine\n\n"));
    assertEquals(List.of("boom", "fine"), seen);
    assertEquals("handler failed", errors.get(0).getMessage());
  }

  @Test
  void anthropicLikeStream() {
    String stream = "event: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n"
        + "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
        + "event: content_block_delta\r\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"text\":\"Hi\"}}\r\n\r\n";
    List<SseEvent> got = parseAllSplits(stream);
    assertEquals(3, got.size());
    assertEquals("ping", got.get(1).event());
    assertNull(got.get(2).retry());
  }
}
