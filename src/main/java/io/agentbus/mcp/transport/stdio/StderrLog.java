package io.agentbus.mcp.transport.stdio;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains a server's stderr on its own thread (a full pipe would stall the child), logs
 * each line prefixed with the server name, and remembers the last line for exit messages.
 * Lines are cut at {@link #MAX_LINE} characters.
 */
final class StderrLog {

  private static final Logger LOG = LoggerFactory.getLogger("io.agentbus.mcp.stderr");
  static final int MAX_LINE = 4096;

  private final String name;
  private volatile String lastLine;

  StderrLog(String name) {
    this.name = name;
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
    lastLine = text;
    LOG.info("[{}] {}", name, text);
  }

  /** @return the last non-empty stderr line, or {@code null} */
  String lastLine() {
    return lastLine;
  }
}
