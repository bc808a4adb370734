package io.agentbus.mcp.impl;

import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs a server's {@code notifications/message} at the matching SLF4J level. */
final class ServerLog {

  private static final Logger LOG = LoggerFactory.getLogger("io.agentbus.mcp.serverlog");

  private ServerLog() {
  }

  static void log(String server, JsonObject params) {
    String level = params.getValue("level") instanceof String l ? l : "info";
    Object logger = params.getValue("logger");
    Object data = params.getValue("data");
    String text = logger == null ? String.valueOf(data) : logger + ": " + data;
    switch (level) {
      case "debug" -> LOG.debug("[{}] {}", server, text);
      case "info", "notice" -> LOG.info("[{}] {}", server, text);
      case "warning" -> LOG.warn("[{}] {}", server, text);
      default -> LOG.error("[{}] {} ({})", server, text, level);
    }
  }
}
