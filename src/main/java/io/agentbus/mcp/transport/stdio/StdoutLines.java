package io.agentbus.mcp.transport.stdio;

import io.agentbus.limits.LogRateLimit;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a stdio server's stdout lines into JSON-RPC messages, and skips the lines that are
 * none: not JSON, JSON but not an object, or over the size limit. Each kind is logged with
 * its own {@link LogRateLimit}, so that a server printing garbage at full speed costs a
 * handful of log lines and a count rather than a line each. Fed on the connection's context.
 */
final class StdoutLines {

  private static final Logger LOG = LoggerFactory.getLogger(StdioTransport.class);
  private static final int PREVIEW_CHARS = 200;
  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};

  private final String name;
  private final int maxBytes;
  private final Handler<JsonObject> messages;
  private final LogRateLimit notJson;
  private final LogRateLimit notObject;
  private final LogRateLimit oversized;

  /**
   * @param messages receives each JSON object line
   * @param scheduler writes the suppressed counts when a window ends; may be {@code null}
   */
  StdoutLines(String name, int maxBytes, Handler<JsonObject> messages, LogRateLimit.Scheduler scheduler) {
    this.name = name;
    this.maxBytes = maxBytes;
    this.messages = messages;
    this.notJson = LogRateLimit.warnings(LOG, name, "stdout lines that are not JSON", scheduler);
    this.notObject = LogRateLimit.warnings(LOG, name, "stdout lines that are not a JSON-RPC object", scheduler);
    this.oversized = LogRateLimit.warnings(LOG, name, "stdout lines over the size limit", scheduler);
  }

  /** Handles one line (without its line end). */
  void line(Buffer line) {
    if (!mayBeJson(line)) {
      skipNotJson(line);
      return;
    }
    Object parsed;
    try {
      parsed = line.toJsonValue();
    } catch (DecodeException e) {
      skipNotJson(line);
      return;
    }
    if (parsed instanceof JsonObject msg) {
      messages.handle(msg);
    } else if (notObject.permit()) {
      LOG.warn("[{}] skipped a line that is not a JSON-RPC object: {}", name, preview(line));
    }
  }

  /** A line of {@code size} bytes was dropped for being over the limit. */
  void oversized(long size) {
    if (oversized.permit()) {
      LOG.warn("[{}] skipped a {}-byte message: over the {}-byte limit", name, size, maxBytes);
    }
  }

  /** Logs the counts of what was suppressed and not yet reported (the connection ends). */
  void flush() {
    notJson.flush();
    notObject.flush();
    oversized.flush();
  }

  private void skipNotJson(Buffer line) {
    if (notJson.permit()) {
      LOG.warn("[{}] skipped a line that is not JSON: {}", name, preview(line));
    }
  }

  /**
   * A cheap look at the first and last non-blank bytes: {@code false} when the line cannot be
   * JSON ({@code {...}}, {@code [...]}, {@code "..."}, a number, {@code true}, {@code false},
   * {@code null}). Most garbage ends here, without the cost of a parser exception.
   */
  static boolean mayBeJson(Buffer line) {
    int first = 0;
    int last = line.length() - 1;
    while (first <= last && isBlank(line.getByte(first))) {
      first++;
    }
    while (last > first && isBlank(line.getByte(last))) {
      last--;
    }
    if (first > last) {
      return false;
    }
    byte a = line.getByte(first);
    byte z = line.getByte(last);
    return switch (a) {
      case '{' -> z == '}';
      case '[' -> z == ']';
      case '"' -> z == '"' && last > first;
      case 't' -> is(line, first, last, TRUE);
      case 'f' -> is(line, first, last, FALSE);
      case 'n' -> is(line, first, last, NULL);
      case '-' -> isDigit(z);
      default -> isDigit(a) && isDigit(z);
    };
  }

  private static boolean is(Buffer line, int first, int last, byte[] literal) {
    if (last - first + 1 != literal.length) {
      return false;
    }
    for (int i = 0; i < literal.length; i++) {
      if (line.getByte(first + i) != literal[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean isBlank(byte b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n';
  }

  private static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  private static String preview(Buffer line) {
    String s = line.length() > PREVIEW_CHARS ? line.getString(0, PREVIEW_CHARS) + "..." : line.toString();
    return s.replaceAll("\\p{Cntrl}", "?");
  }
}
