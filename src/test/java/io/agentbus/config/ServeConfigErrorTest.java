package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.agentbus.cli.AgentMain;
import io.agentbus.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code serve} with a bad value stops before starting anything: exit code 2 and one line
 * naming the file, the field and the allowed values (in-process: no server is started).
 */
class ServeConfigErrorTest {

  private static final String GOOD_MCP = "{\"mcpServers\": {\"demo\": {\"command\": \"java\"}}}";

  /** agent.json, mcp.json, the message after "agentbus: FILE: " */
  static Stream<Arguments> badFiles() {
    return Stream.of(
      Arguments.of("{\"maxTokens\": 4294967296}", GOOD_MCP,
        "agent.json: agent config: field 'maxTokens' must be an integer from 1 to 2147483647 (was 4294967296)"),
      Arguments.of("{\"model\": {\"connectTimeoutMs\": \"10s\"}}", GOOD_MCP,
        "agent.json: agent config: field 'model.connectTimeoutMs' must be an integer from 1 to 2147483647 (was a string)"),
      Arguments.of("{\"loop\": {\"maxIterations\": 2.5}}", GOOD_MCP,
        "agent.json: agent config: field 'loop.maxIterations' must be an integer from 1 to 2147483647 (was 2.5)"),
      Arguments.of("{\"http\": {\"retryAfterSeconds\": 0}}", GOOD_MCP,
        "agent.json: agent config: field 'http.retryAfterSeconds' must be an integer from 1 to 2147483647 (was 0)"),
      Arguments.of("{\"http\": {\"port\": 4294975592}}", GOOD_MCP,
        "agent.json: agent config: field 'http.port' must be a port number (0-65535; 0 picks a free port) (was 4294975592)"),
      Arguments.of("{\"model\": {\"maxEventSize\": 100}}", GOOD_MCP,
        "agent.json: agent config: field 'model.maxEventSize' must be an integer from 1024 to 2147483647 (was 100)"),
      Arguments.of("{}", "{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"maxMessageBytes\": 4294967297}}}",
        "mcp.json: server 'fs': field 'maxMessageBytes' must be an integer from 1 to 2147483647 (was 4294967297)"),
      Arguments.of("{}", "{\"mcpServers\": {\"fs\": {\"command\": \"x\", \"restart\": {\"maxBackoffMs\": \"30s\"}}}}",
        "mcp.json: server 'fs': field 'restart.maxBackoffMs' must be an integer >= 1 (was a string)"));
  }

  @ParameterizedTest
  @MethodSource("badFiles")
  void serveExits2WithTheFieldAndItsRange(String agentJson, String mcpJson, String message, @TempDir Path dir) throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.json"), agentJson);
    Path mcp = Files.writeString(dir.resolve("mcp.json"), mcpJson);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    // a config that passed by mistake would start serving: bound the wait
    int code = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> AgentMain.run(
      List.of("serve", "--config", agent.toString(), "--mcp-config", mcp.toString()),
      new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
    assertEquals(Cli.FAILURE, code, err.toString(StandardCharsets.UTF_8));
    assertEquals("agentbus: " + dir + "/" + message + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
  }
}
