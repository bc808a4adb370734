package io.agentbus.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Runs the official MCP conformance suite (the version pinned in {@code interop/package.json})
 * against Agentbus' client: for each client scenario the suite starts its scenario server and
 * runs {@code interop/conformance-client} (see {@link ConformanceClient}) against it. A
 * scenario passes when the suite reports no failed check, no warning and a clean client exit.
 * To cover another scenario, add its name below and its steps to
 * {@link ConformanceClient#SCENARIOS}.
 */
@Integration
class ConformanceSuiteTest {

  /** The suite's own limit for one client run, in ms. */
  private static final int CLIENT_TIMEOUT_MS = 30_000;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"initialize", "tools_call", "sse-retry",
    "elicitation-sep1034-client-defaults"})
  void scenarioPasses(String scenario) throws Exception {
    Path interop = InteropServers.dir();
    Path suite = interop.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    assertTrue(Files.isRegularFile(suite), () -> suite + " is missing: run `bash interop/install.sh` (mvn verify does)");
    Path results = interop.resolveSibling("target").resolve("conformance");
    // the suite splits --command at spaces: the path must not contain any
    List<String> cmd = List.of("node", "--import", interop.resolve("node20-globsync.mjs").toString(), suite.toString(),
      "client", "--command", interop.resolve("conformance-client").toString(), "--scenario", scenario,
      "--timeout", String.valueOf(CLIENT_TIMEOUT_MS), "-o", results.toString());
    Files.createDirectories(results);
    Path log = results.resolve(scenario + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    // the client JVM runs on this test's JDK
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    Process p = pb.start();
    try {
      if (!p.waitFor(CLIENT_TIMEOUT_MS + 30_000, TimeUnit.MILLISECONDS)) {
        throw new AssertionError("the conformance suite did not finish:\n" + Files.readString(log));
      }
    } finally {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    String report = output + clientLog(output);
    assertEquals(0, p.exitValue(), () -> "conformance scenario " + scenario + " failed:\n" + report);
    assertTrue(output.contains("OVERALL: PASSED"), () -> "conformance scenario " + scenario + " did not pass:\n" + report);
  }

  /** The client's stdout and stderr as the suite saved them, unless it printed them (on a bad exit). */
  private static String clientLog(String output) throws IOException {
    int at = output.lastIndexOf("Results saved to ");
    if (at < 0 || output.contains("Client exited with code")) {
      return "";
    }
    Path dir = Path.of(output.substring(at + "Results saved to ".length()).lines().findFirst().orElse("").trim());
    StringBuilder sb = new StringBuilder();
    for (String f : List.of("stdout.txt", "stderr.txt")) {
      Path file = dir.resolve(f);
      if (Files.isRegularFile(file)) {
        sb.append("\n--- client ").append(f).append(" ---\n").append(Files.readString(file));
      }
    }
    return sb.toString();
  }
}
