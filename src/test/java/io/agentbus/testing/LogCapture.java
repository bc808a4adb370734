package io.agentbus.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.AppenderBase;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CopyOnWriteArraySet;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.helpers.FormattingTuple;
import org.slf4j.helpers.MessageFormatter;

/**
 * Captures log lines for assertions about what was (and was never) logged, scoped to a test:
 * a {@link Lines} holds only the lines logged while it is open, from any thread, at every
 * level: TRACE and DEBUG lines are captured too, even though the test configuration does not
 * print them, so that "this secret is never logged" also covers the debug logging an
 * operator may turn on. (A line whose call sits behind an {@code isDebugEnabled()} guard, or
 * that uses the fluent {@code atDebug()} API, is not seen below the configured level.)
 *
 * <pre>{@code
 * @RegisterExtension final LogCapture.Lines logs = LogCapture.perTest();          // each test
 * @RegisterExtension static final LogCapture.Lines logs = LogCapture.perClass();  // @BeforeAll..@AfterAll
 * try (LogCapture.Lines logs = LogCapture.capture()) { ... }                         // a block
 * }</pre>
 *
 * <p>A "never logged" assertion proves something only when the code that would log it ran:
 * assert an expected line too ({@link #contains} on what that path does log).
 *
 * <p>This class is also the logback appender of {@code logback-test.xml}; events at enabled
 * levels arrive through it, the others through a turbo filter installed on first use.
 */
public final class LogCapture extends AppenderBase<ILoggingEvent> {

  private static final Set<Lines> OPEN = new CopyOnWriteArraySet<>();
  private static volatile boolean belowLevelInstalled;

  @Override
  protected void append(ILoggingEvent event) {
    if (OPEN.isEmpty()) {
      return;
    }
    String line = line(event.getLevel(), event.getLoggerName(), event.getFormattedMessage(), throwableText(event.getThrowableProxy()));
    OPEN.forEach(l -> l.add(line));
  }

  /** @return a capture open until closed */
  public static Lines capture() {
    Lines lines = new Lines(false);
    lines.open();
    return lines;
  }

  /** @return an extension (an instance or static {@code @RegisterExtension} field) capturing each test */
  public static Lines perTest() {
    return new Lines(false);
  }

  /**
   * @return an extension (a static {@code @RegisterExtension} field) capturing from before
   *     the {@code @BeforeAll} methods to after the {@code @AfterAll} ones
   */
  public static Lines perClass() {
    return new Lines(true);
  }

  private static String line(Level level, String logger, String message, String throwable) {
    return level + " " + logger + " " + message + throwable;
  }

  private static String throwableText(IThrowableProxy t) {
    StringBuilder sb = new StringBuilder();
    for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
      sb.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
    }
    return sb.toString();
  }

  private static String throwableText(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (int depth = 0; t != null && depth < 10; depth++, t = t.getCause()) {
      sb.append(" | ").append(t.getClass().getName()).append(": ").append(t.getMessage());
    }
    return sb.toString();
  }

  /** Installs, once, the filter that sees the calls below their logger's level. */
  private static synchronized void installBelowLevel() {
    if (belowLevelInstalled) {
      return;
    }
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      TurboFilter filter = new BelowLevel();
      filter.start();
      context.addTurboFilter(filter);
    }
    belowLevelInstalled = true;
  }

  /**
   * Captures the calls that logback drops for their level (the appender never sees them) and
   * changes nothing: always {@code NEUTRAL}.
   */
  private static final class BelowLevel extends TurboFilter {

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
      // format == null: an isXxxEnabled() check, not a log call
      if (OPEN.isEmpty() || format == null || level.isGreaterOrEqual(logger.getEffectiveLevel())) {
        return FilterReply.NEUTRAL;
      }
      FormattingTuple formatted = t == null ? MessageFormatter.arrayFormat(format, params)
        : MessageFormatter.arrayFormat(format, params, t);
      Throwable thrown = t != null ? t : formatted.getThrowable();
      String line = line(level, logger.getName(), formatted.getMessage(), throwableText(thrown));
      OPEN.forEach(l -> l.add(line));
      return FilterReply.NEUTRAL;
    }
  }

  /** The lines logged while open; also a JUnit 5 extension that opens and closes itself. */
  public static final class Lines implements AutoCloseable, BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
    AfterEachCallback {

    private static final int MAX = 200_000;

    private final boolean perClass;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private Lines(boolean perClass) {
      this.perClass = perClass;
    }

    void open() {
      installBelowLevel();
      lines.clear();
      OPEN.add(this);
    }

    void add(String line) {
      if (lines.size() < MAX) {
        lines.add(line);
      }
    }

    /** @return every line captured so far: {@code LEVEL logger message | exception: message ...} */
    public List<String> lines() {
      return List.copyOf(lines);
    }

    /** @return whether a captured line contains {@code text} */
    public boolean contains(String text) {
      return lines.stream().anyMatch(l -> l.contains(text));
    }

    /** @return how many captured lines contain {@code text} */
    public long count(String text) {
      return lines.stream().filter(l -> l.contains(text)).count();
    }

    /** Stops capturing; the lines captured stay readable. */
    @Override
    public void close() {
      OPEN.remove(this);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
      if (perClass) {
        open();
      }
    }

    @Override
    public void afterAll(ExtensionContext context) {
      if (perClass) {
        close();
      }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
      if (!perClass) {
        open();
      }
    }

    @Override
    public void afterEach(ExtensionContext context) {
      if (!perClass) {
        close();
      }
    }
  }
}
