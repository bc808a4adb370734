package io.agentbus.testing;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps every formatted log line of the test JVM so tests can assert what was (and was
 * never) logged, e.g. that secrets stay out of logs and that no thread was blocked.
 */
public final class LogCapture extends AppenderBase<ILoggingEvent> {

  private static final List<String> LINES = new CopyOnWriteArrayList<>();
  private static final int MAX = 200_000;

  @Override
  protected void append(ILoggingEvent event) {
    if (LINES.size() < MAX) {
      LINES.add(event.getLevel() + " " + event.getLoggerName() + " " + event.getFormattedMessage());
    }
  }

  /** @return every line logged so far */
  public static List<String> lines() {
    return List.copyOf(LINES);
  }

  /** @return whether any line logged so far contains {@code text} */
  public static boolean contains(String text) {
    return LINES.stream().anyMatch(l -> l.contains(text));
  }
}
