package io.agentbus.mcp.transport.stdio;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Logs MCP server stderr at INFO for each test, as in production (the test configuration keeps
 * it at WARN), and restores the level after it.
 */
final class ServerStderrAtInfo implements BeforeEachCallback, AfterEachCallback {

  static final String LOGGER = "io.agentbus.mcp.stderr";

  private final Logger logger = (Logger) LoggerFactory.getLogger(LOGGER);
  private Level level;

  @Override
  public void beforeEach(ExtensionContext context) {
    level = logger.getLevel();
    logger.setLevel(Level.INFO);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    logger.setLevel(level);
  }
}
