package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.Integration;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A JVM that ran out of memory exits (code 3) instead of living on half dead. */
@Integration
class FatalErrorsTest {

  /** The child process: installs the handlers, then runs out of memory the way it is told. */
  public static final class Probe {
    public static void main(String[] args) throws InterruptedException {
      Vertx vertx = Vertx.vertx();
      FatalErrors.install(vertx);
      List<byte[]> retained = new ArrayList<>();
      switch (args[0]) {
        case "thrown-on-event-loop" -> vertx.runOnContext(v -> {
          throw new OutOfMemoryError("simulated");
        });
        case "thrown-on-other-thread" -> new Thread(() -> {
          throw new OutOfMemoryError("simulated");
        }).start();
        default -> vertx.setPeriodic(1, t -> {
          for (int i = 0; i < 64; i++) {
            retained.add(new byte[64 * 1024]);
          }
        });
      }
      // Vert.x threads are daemons: keep the JVM up until the handlers end it
      new java.util.concurrent.CountDownLatch(1).await();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"thrown-on-event-loop", "thrown-on-other-thread", "real-allocation"})
  void theProcessExits(String how) throws Exception {
    Path stderrFile = java.nio.file.Files.createTempFile("fatal-errors", ".err");
    Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx48m",
      "-cp", System.getProperty("java.class.path"), Probe.class.getName(), how)
      .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(stderrFile.toFile()).start();
    boolean exited = p.waitFor(90, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    String stderr = java.nio.file.Files.readString(stderrFile, StandardCharsets.UTF_8);
    java.nio.file.Files.deleteIfExists(stderrFile);
    assertTrue(exited, "still running after 90 s; stderr: " + stderr);
    assertEquals(FatalErrors.EXIT_CODE, p.exitValue(), stderr);
    if (!"real-allocation".equals(how)) {
      // with the heap really exhausted, even printing may fail: the exit code is what counts
      assertTrue(stderr.contains("fatal: "), stderr);
    }
  }
}
