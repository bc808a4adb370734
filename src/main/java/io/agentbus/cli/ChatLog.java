package io.agentbus.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Keeps log lines off the interactive chat: while the chat runs, what the root logger would
 * print on the console goes to a temporary file instead (named in the chat's banner), and
 * the console appenders are put back afterwards. An empty file is deleted at the end.
 */
final class ChatLog implements AutoCloseable {

  private final Logger root;
  private final List<Appender<ILoggingEvent>> consoles;
  private final FileAppender<ILoggingEvent> file;
  private final Path path;

  private ChatLog(Logger root, List<Appender<ILoggingEvent>> consoles, FileAppender<ILoggingEvent> file, Path path) {
    this.root = root;
    this.consoles = consoles;
    this.file = file;
    this.path = path;
  }

  /** @return a log that stays where it is (for {@code --verbose}) */
  static ChatLog unchanged() {
    return new ChatLog(null, List.of(), null, null);
  }

  /**
   * Moves the console logging to a new temporary file; stays unchanged when the logging
   * backend is not Logback or no file can be made.
   */
  static ChatLog toFile() {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return unchanged();
    }
    Path path;
    try {
      path = Files.createTempFile("agentbus-chat-", ".log");
    } catch (IOException | RuntimeException e) {
      return unchanged();
    }
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    List<Appender<ILoggingEvent>> consoles = new ArrayList<>();
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      Appender<ILoggingEvent> a = it.next();
      if (a instanceof ConsoleAppender) {
        consoles.add(a);
      }
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0} %msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> file = new FileAppender<>();
    file.setContext(context);
    file.setName("agentbus-chat-file");
    file.setFile(path.toString());
    file.setEncoder(encoder);
    file.start();
    root.addAppender(file);
    consoles.forEach(root::detachAppender);
    return new ChatLog(root, consoles, file, path);
  }

  /** @return where the log goes, for the banner, or {@code null} when it was left alone */
  Path path() {
    return path;
  }

  @Override
  public void close() {
    if (root == null) {
      return;
    }
    consoles.forEach(root::addAppender);
    root.detachAppender(file);
    file.stop();
    try {
      if (Files.size(path) == 0) {
        Files.delete(path);
      }
    } catch (IOException e) {
      // the file stays
    }
  }
}
