package io.agentbus.mcp.impl;

import io.agentbus.limits.LogRateLimit;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Logs one server's {@code notifications/message} at the matching SLF4J level. The server
 * decides how much it sends, so each level is rate-limited on its own
 * ({@link LogRateLimit#OUTPUT_MAX_LINES} lines per window; a flood of info lines does not
 * hide an error) and each line is cut at {@link #MAX_CHARS} characters.
 */
final class ServerLog {

  private static final Logger LOG = LoggerFactory.getLogger("io.agentbus.mcp.serverlog");
  static final int MAX_CHARS = 4096;

  private final String server;
  private final LogRateLimit debug;
  private final LogRateLimit info;
  private final LogRateLimit warn;
  private final LogRateLimit error;

  /** @param scheduler writes the suppressed counts when a window ends; may be {@code null} */
  ServerLog(String server, LogRateLimit.Scheduler scheduler) {
    this.server = server;
    this.debug = limit(Level.DEBUG, scheduler);
    this.info = limit(Level.INFO, scheduler);
    this.warn = limit(Level.WARN, scheduler);
    this.error = limit(Level.ERROR, scheduler);
  }

  private LogRateLimit limit(Level level, LogRateLimit.Scheduler scheduler) {
    return LogRateLimit.lines(LOG, level, server, "log notifications", LogRateLimit.OUTPUT_MAX_LINES, scheduler);
  }

  void log(JsonObject params) {
    String level = params.getValue("level") instanceof String l ? l : "info";
    switch (level) {
      case "debug" -> {
        if (debug.permit()) {
          LOG.debug("[{}] {}", server, text(params));
        }
      }
      case "info", "notice" -> {
        if (info.permit()) {
          LOG.info("[{}] {}", server, text(params));
        }
      }
      case "warning" -> {
        if (warn.permit()) {
          LOG.warn("[{}] {}", server, text(params));
        }
      }
      default -> {
        if (error.permit()) {
          LOG.error("[{}] {} ({})", server, text(params), cut(level));
        }
      }
    }
  }

  /** Logs the counts of suppressed lines not yet reported (the connection ends). */
  void flush() {
    debug.flush();
    info.flush();
    warn.flush();
    error.flush();
  }

  private static String text(JsonObject params) {
    Object logger = params.getValue("logger");
    Object data = params.getValue("data");
    return cut(logger == null ? String.valueOf(data) : logger + ": " + data);
  }

  private static String cut(String s) {
    return s.length() > MAX_CHARS ? s.substring(0, MAX_CHARS) + "..." : s;
  }
}
