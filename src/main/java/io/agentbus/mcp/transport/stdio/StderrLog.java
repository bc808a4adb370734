package io.agentbus.mcp.transport.stdio;

import io.agentbus.limits.LogRateLimit;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Drains a server's stderr on its own thread (a full pipe would stall the child), logs
 * each line prefixed with the server name, and keeps the last {@link #TAIL_LINES} lines so
 * that an exit can be explained by what the server said ({@link #summary()}). Lines are cut
 * at {@link #MAX_LINE} characters. At most {@link LogRateLimit#OUTPUT_MAX_LINES} lines are
 * logged per {@link LogRateLimit#DEFAULT_WINDOW_MS}; the rest are counted (a server flooding
 * its stderr costs a few lines and a count), but every line is still kept for the summary.
 */
final class StderrLog {

  private static final Logger LOG = LoggerFactory.getLogger("io.agentbus.mcp.stderr");
  static final int MAX_LINE = 4096;
  /** Lines kept for {@link #summary()}: enough for a crash report that follows other output. */
  static final int TAIL_LINES = 40;
  /** Characters of each kept line (a summary is one log line, not a dump). */
  private static final int KEPT_CHARS = 500;
  /** Error lines a summary names at most. */
  private static final int SUMMARY_LINES = 3;

  /**
   * Lines that explain nothing on their own: stack frames (Node.js, Java), Node's version
   * banner and source excerpt ({@code node:internal/...:1210}, {@code throw err;}, {@code ^}),
   * the error object's properties and braces, Java's {@code ... 3 more}, Python's traceback
   * frames.
   */
  private static final Pattern NOISE = Pattern.compile(String.join("|",
    "\\s*at\\s.*",
    "Node\\.js v\\d.*",
    "node:internal/.*",
    "\\s*throw\\s+\\w+;?",
    "\\s*\\^+\\s*",
    "\\s*[{}\\[\\]]+\\s*",
    "\\s+\\w+: .*",
    "\\s*\\.\\.\\. \\d+ more",
    "Traceback \\(most recent call last\\):",
    "\\s*File \".*\", line \\d+.*"));
  /** Lines that say what went wrong. */
  private static final Pattern ERROR = Pattern.compile(
    "(?i).*(\\b\\w*(error|exception)\\b|\\bfatal\\b|\\bcannot\\b|\\bcan't\\b|\\bfailed\\b|\\bdenied\\b|\\bnot found\\b"
      + "|\\bno such\\b|\\bmissing\\b|\\binvalid\\b|\\bunable\\b|\\bpanic\\b).*");

  private final String name;
  private final LogRateLimit limit;
  /** Written by the stderr thread, read on the connection's context. */
  private final Deque<String> tail = new ArrayDeque<>();

  StderrLog(String name) {
    this(name, null);
  }

  /** @param scheduler writes the count of suppressed lines when a window ends; may be {@code null} */
  StderrLog(String name, LogRateLimit.Scheduler scheduler) {
    this.name = name;
    this.limit = LogRateLimit.lines(LOG, Level.INFO, name, "stderr lines", LogRateLimit.OUTPUT_MAX_LINES, scheduler);
  }

  void drain(InputStream err) {
    StringBuilder line = new StringBuilder();
    boolean cut = false;
    try (Reader r = new InputStreamReader(err, StandardCharsets.UTF_8)) {
      int c;
      while ((c = r.read()) != -1) {
        if (c == '\n') {
          emit(line, cut);
          line.setLength(0);
          cut = false;
        } else if (line.length() < MAX_LINE) {
          if (c != '\r') {
            line.append((char) c);
          }
        } else {
          cut = true;
        }
      }
      if (line.length() > 0) {
        emit(line, cut);
      }
    } catch (IOException e) {
      LOG.debug("[{}] stderr read ended: {}", name, e.toString());
    }
  }

  private void emit(StringBuilder line, boolean cut) {
    if (line.length() == 0) {
      return;
    }
    String text = cut ? line + "..." : line.toString();
    remember(text);
    if (limit.permit()) {
      LOG.info("[{}] {}", name, text);
    }
  }

  /** Logs the count of suppressed lines not yet reported (the process ended). */
  void flush() {
    limit.flush();
  }

  /** Keeps one line for {@link #summary()}. */
  void remember(String line) {
    String kept = line.length() > KEPT_CHARS ? line.substring(0, KEPT_CHARS) + "..." : line;
    synchronized (tail) {
      if (tail.size() == TAIL_LINES) {
        tail.removeFirst();
      }
      tail.addLast(kept);
    }
  }

  /**
   * @return what the server's last stderr lines say went wrong: the last (up to three) lines
   *     that read like errors, without stack frames or version banners; else the last line
   *     that is not such noise; {@code null} when there is none
   */
  String summary() {
    List<String> lines;
    synchronized (tail) {
      lines = new ArrayList<>(tail);
    }
    List<String> meaningful = lines.stream().filter(l -> !l.isBlank() && !NOISE.matcher(l).matches()).toList();
    List<String> errors = meaningful.stream().filter(l -> ERROR.matcher(l).matches()).distinct().toList();
    if (!errors.isEmpty()) {
      return String.join(" / ", errors.subList(Math.max(0, errors.size() - SUMMARY_LINES), errors.size())).strip();
    }
    return meaningful.isEmpty() ? null : meaningful.get(meaningful.size() - 1).strip();
  }
}
