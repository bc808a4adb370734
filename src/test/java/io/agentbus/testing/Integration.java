package io.agentbus.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that needs more than the JVM it runs in: Node.js and the pinned interop
 * MCP servers, a child JVM, or a child process of any kind. {@code mvn test} runs only the
 * unit tests; {@code mvn verify} runs these too (failsafe, after packaging).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(Integration.TAG)
public @interface Integration {
  /** The JUnit tag the build selects on. */
  String TAG = "integration";
}
