package io.agentbus.mcp.transport.stdio;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import java.util.function.LongConsumer;

/**
 * Splits a byte stream into newline-terminated lines of at most {@code maxLineBytes}.
 * A longer line is dropped whole (reported with its size once its end is seen) and the
 * framer carries on with the next line, holding at most {@code maxLineBytes} in memory.
 * Not thread-safe: fed from one context.
 */
final class LineFramer {

  private final int maxLineBytes;
  private final Handler<Buffer> lineHandler;
  private final LongConsumer oversizedHandler;
  private byte[] partial = new byte[256];
  private int partialLen;
  private long discarding = -1;

  LineFramer(int maxLineBytes, Handler<Buffer> lineHandler, LongConsumer oversizedHandler) {
    this.maxLineBytes = maxLineBytes;
    this.lineHandler = lineHandler;
    this.oversizedHandler = oversizedHandler;
  }

  void handle(byte[] data, int len) {
    int start = 0;
    for (int i = 0; i < len; i++) {
      if (data[i] == '\n') {
        segment(data, start, i, true);
        start = i + 1;
      }
    }
    if (start < len) {
      segment(data, start, len, false);
    }
  }

  private void segment(byte[] data, int from, int to, boolean complete) {
    int n = to - from;
    if (discarding >= 0) {
      discarding += n;
      if (complete) {
        oversizedHandler.accept(discarding);
        discarding = -1;
      }
      return;
    }
    if (partialLen + n > maxLineBytes) {
      discarding = partialLen + n;
      partialLen = 0;
      if (partial.length > 4096) {
        partial = new byte[256];
      }
      if (complete) {
        oversizedHandler.accept(discarding);
        discarding = -1;
      }
      return;
    }
    if (!complete) {
      ensure(partialLen + n);
      System.arraycopy(data, from, partial, partialLen, n);
      partialLen += n;
      return;
    }
    Buffer line;
    if (partialLen == 0) {
      line = Buffer.buffer(Arrays.copyOfRange(data, from, stripCr(data, from, to)));
    } else {
      ensure(partialLen + n);
      System.arraycopy(data, from, partial, partialLen, n);
      int end = stripCr(partial, 0, partialLen + n);
      line = Buffer.buffer(Arrays.copyOf(partial, end));
      partialLen = 0;
      if (partial.length > 64 * 1024) {
        partial = new byte[256];
      }
    }
    if (line.length() > 0) {
      lineHandler.handle(line);
    }
  }

  private static int stripCr(byte[] data, int from, int to) {
    return to > from && data[to - 1] == '\r' ? to - 1 : to;
  }

  private void ensure(int capacity) {
    if (capacity > partial.length) {
      partial = Arrays.copyOf(partial, Math.min(Math.max(capacity, partial.length * 2), maxLineBytes));
    }
  }
}
