package io.agentbus.sse;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An incremental, bounded Server-Sent-Events parser following the WHATWG "event stream
 * interpretation" rules.
 *
 * <p>Feed it the body of a {@code text/event-stream} response as {@link Buffer} chunks split
 * anywhere (even inside a CRLF pair or a multi-byte UTF-8 character) through {@link
 * #handle(Buffer)}; it emits each complete event to the {@link #handler(Handler) event handler}
 * when the terminating blank line arrives. Lines may end in LF, CRLF or CR. Comment lines
 * ({@code :...}) and unknown fields are ignored, a single space after the colon is stripped, a
 * {@code retry} value is honoured only when it is all ASCII digits and an {@code id} containing
 * U+0000 is ignored. A leading UTF-8 byte order mark is skipped.
 *
 * <p>One deliberate deviation from the spec: an event whose data is empty is still dispatched
 * (with its id) as long as it carried a {@code data}, {@code id}, {@code event} or {@code retry}
 * field, so that callers can see priming events (for example MCP's id-only events) and decide to
 * ignore them. A blank line after nothing, or after comments only, dispatches nothing.
 *
 * <p>Memory is bounded: once the event in progress (its retained field values plus the line being
 * read) exceeds {@code maxEventSize} bytes, a {@link SseEventTooLargeException} is reported to the
 * {@link #exceptionHandler(Handler) exception handler} and the rest of that event, up to its
 * terminating blank line, is skipped without being buffered.
 *
 * <p>Instances are not thread-safe: use one per stream, from one context.
 */
public final class SseParser implements Handler<Buffer> {

  /** Default maximum size of one event in bytes (1 MiB). */
  public static final int DEFAULT_MAX_EVENT_SIZE = 1024 * 1024;

  private static final Logger log = LoggerFactory.getLogger(SseParser.class);
  private static final byte CR = '\r';
  private static final byte LF = '\n';
  private static final byte COLON = ':';

  private final int maxEventSize;
  private Handler<SseEvent> eventHandler;
  private Handler<Throwable> exceptionHandler;

  private byte[] line = new byte[256];
  private int lineLen;
  /** The current line has at least one byte, even if it was not buffered (comment, skipping). */
  private boolean lineHasBytes;
  /** The current line started with ':' (and is not the first line, which may start with a BOM). */
  private boolean inComment;
  /** The previous chunk ended with CR: a leading LF in the next chunk belongs to that line end. */
  private boolean afterCr;
  private boolean firstLine = true;
  /** Skipping the rest of an oversized event until its blank line. */
  private boolean skipping;

  private final StringBuilder data = new StringBuilder();
  private boolean hasData;
  private String eventType = "";
  private Long retry;
  private boolean hasFields;
  private int eventBytes;
  private String lastEventId;

  private SseParser(int maxEventSize) {
    if (maxEventSize < 1) {
      throw new IllegalArgumentException("maxEventSize must be >= 1, was " + maxEventSize);
    }
    this.maxEventSize = maxEventSize;
  }

  /**
   * @return a parser with the {@link #DEFAULT_MAX_EVENT_SIZE default maximum event size}
   */
  public static SseParser create() {
    return new SseParser(DEFAULT_MAX_EVENT_SIZE);
  }

  /**
   * @param maxEventSize the maximum size of one event in bytes (at least 1)
   * @return a new parser
   */
  public static SseParser create(int maxEventSize) {
    return new SseParser(maxEventSize);
  }

  /**
   * Sets the handler receiving each complete event.
   *
   * @param handler the event handler
   * @return this parser
   */
  public SseParser handler(Handler<SseEvent> handler) {
    this.eventHandler = handler;
    return this;
  }

  /**
   * Sets the handler told about oversized events ({@link SseEventTooLargeException}) and about
   * failures thrown by the event handler. Without one, such problems are logged.
   *
   * @param handler the exception handler
   * @return this parser
   */
  public SseParser exceptionHandler(Handler<Throwable> handler) {
    this.exceptionHandler = handler;
    return this;
  }

  /**
   * @return the configured maximum event size in bytes
   */
  public int maxEventSize() {
    return maxEventSize;
  }

  /**
   * @return the last event id seen on this stream (the WHATWG last event ID buffer), or {@code
   *     null} if no {@code id} field was seen yet; use it as {@code Last-Event-ID} when resuming
   */
  public String lastEventId() {
    return lastEventId;
  }

  /**
   * Seeds the last event id, for example when a new parser continues a resumed stream.
   *
   * @param id the id to start from, may be {@code null}
   * @return this parser
   */
  public SseParser lastEventId(String id) {
    this.lastEventId = id;
    return this;
  }

  /**
   * Feeds the next chunk of the stream.
   *
   * @param chunk the bytes received, split anywhere
   */
  @Override
  public void handle(Buffer chunk) {
    Objects.requireNonNull(chunk, "'chunk' cannot be null");
    byte[] bytes = chunk.getBytes();
    int start = 0;
    if (afterCr && bytes.length > 0) {
      afterCr = false;
      if (bytes[0] == LF) {
        start = 1;
      }
    }
    int segStart = start;
    for (int i = start; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b == CR || b == LF) {
        append(bytes, segStart, i);
        lineEnded();
        if (b == CR) {
          if (i + 1 < bytes.length) {
            if (bytes[i + 1] == LF) {
              i++;
            }
          } else {
            afterCr = true;
          }
        }
        segStart = i + 1;
      }
    }
    append(bytes, segStart, bytes.length);
  }

  /**
   * Signals the end of the stream. Per the spec an incomplete event (one not yet terminated by a
   * blank line) is discarded, never dispatched; the parser is reset except for its last event id.
   */
  public void end() {
    if (lineLen > 0 || hasFields || inComment) {
      log.debug("SSE stream ended inside an incomplete event; discarding it");
    }
    lineLen = 0;
    lineHasBytes = false;
    inComment = false;
    afterCr = false;
    skipping = false;
    resetEvent();
  }

  private void append(byte[] bytes, int from, int to) {
    if (from >= to) {
      return;
    }
    lineHasBytes = true;
    if (skipping || inComment) {
      return;
    }
    if (lineLen == 0 && !firstLine && bytes[from] == COLON) {
      inComment = true;
      return;
    }
    int len = to - from;
    if ((long) eventBytes + lineLen + len > maxEventSize) {
      overflow();
      return;
    }
    if (lineLen + len > line.length) {
      line = Arrays.copyOf(line, Math.min(Math.max(line.length * 2, lineLen + len), maxEventSize));
    }
    System.arraycopy(bytes, from, line, lineLen, len);
    lineLen += len;
  }

  private void overflow() {
    skipping = true;
    lineLen = 0;
    resetEvent();
    if (line.length > 4096) {
      line = new byte[256];
    }
    report(new SseEventTooLargeException(maxEventSize));
  }

  private void lineEnded() {
    boolean blank = !lineHasBytes;
    boolean wasComment = inComment;
    inComment = false;
    lineHasBytes = false;
    int len = lineLen;
    lineLen = 0;
    int off = 0;
    if (firstLine) {
      firstLine = false;
      if (len >= 3 && line[0] == (byte) 0xEF && line[1] == (byte) 0xBB && line[2] == (byte) 0xBF) {
        off = 3;
      }
    }
    if (skipping) {
      if (blank) {
        skipping = false;
      }
      return;
    }
    if (wasComment) {
      return;
    }
    if (len - off == 0) {
      dispatch();
      return;
    }
    if (line[off] == COLON) {
      return;
    }
    processField(off, len);
  }

  private void processField(int off, int len) {
    int colon = -1;
    for (int i = off; i < len; i++) {
      if (line[i] == COLON) {
        colon = i;
        break;
      }
    }
    int nameEnd = colon < 0 ? len : colon;
    int valueStart = colon < 0 ? len : colon + 1;
    if (valueStart < len && line[valueStart] == ' ') {
      valueStart++;
    }
    String name = new String(line, off, nameEnd - off, StandardCharsets.UTF_8);
    switch (name) {
      case "data" -> {
        if (hasData) {
          data.append('\n');
        }
        data.append(value(valueStart, len));
        hasData = true;
        hasFields = true;
        eventBytes += len - valueStart + 1;
      }
      case "event" -> {
        eventType = value(valueStart, len);
        hasFields = true;
        eventBytes += len - valueStart;
      }
      case "id" -> {
        String id = value(valueStart, len);
        if (id.indexOf('\0') < 0) {
          lastEventId = id;
        }
        hasFields = true;
      }
      case "retry" -> {
        Long parsed = digits(valueStart, len);
        if (parsed != null) {
          retry = parsed;
          hasFields = true;
        }
      }
      default -> {
        // unknown fields are ignored
      }
    }
  }

  private String value(int from, int to) {
    return new String(line, from, to - from, StandardCharsets.UTF_8);
  }

  private Long digits(int from, int to) {
    if (from >= to || to - from > 18) {
      return null;
    }
    long v = 0;
    for (int i = from; i < to; i++) {
      byte b = line[i];
      if (b < '0' || b > '9') {
        return null;
      }
      v = v * 10 + (b - '0');
    }
    return v;
  }

  private void dispatch() {
    if (!hasFields) {
      resetEvent();
      return;
    }
    SseEvent event = new SseEvent(lastEventId, eventType, data.toString(), retry);
    resetEvent();
    Handler<SseEvent> h = eventHandler;
    if (h == null) {
      return;
    }
    try {
      h.handle(event);
    } catch (RuntimeException e) {
      report(e);
    }
  }

  private void resetEvent() {
    data.setLength(0);
    if (data.capacity() > 4096) {
      data.trimToSize();
    }
    hasData = false;
    eventType = "";
    retry = null;
    hasFields = false;
    eventBytes = 0;
  }

  private void report(Throwable t) {
    Handler<Throwable> h = exceptionHandler;
    if (h != null) {
      h.handle(t);
    } else {
      log.warn("SSE parser: {}", t.getMessage());
    }
  }
}
