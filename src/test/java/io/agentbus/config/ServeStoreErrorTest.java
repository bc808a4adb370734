package io.agentbus.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.cli.AgentMain;
import io.agentbus.cli.Cli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve} whose conversation store cannot be opened stops at once with exit code 2 and
 * one line naming the store, never its password (in-process, no MCP server).
 */
class ServeStoreErrorTest {

  @TempDir
  Path dir;

  private String serve(String agentJson) throws Exception {
    Path agent = Files.writeString(dir.resolve("agent.json"), agentJson);
    Path mcp = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {}}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> AgentMain.run(
      List.of("serve", "--config", agent.toString(), "--mcp-config", mcp.toString()),
      new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
    String stderr = err.toString(StandardCharsets.UTF_8);
    assertEquals(Cli.FAILURE, code, stderr);
    return stderr;
  }

  @Test
  void aPostgresStoreThatDoesNotAnswerStopsServeNamingTheStoreWithoutItsPassword() throws Exception {
    String stderr = serve("{\"http\": {\"port\": 0}, \"store\": {\"type\": \"postgres\", "
      + "\"uri\": \"postgresql://agent:s3cret-pw@127.0.0.1:1/agentbus\", \"connectTimeoutMs\": 2000}}");
    assertTrue(stderr.contains("cannot start Agentbus: conversation store postgres (postgresql://agent@127.0.0.1:1/agentbus)"),
      stderr);
    assertTrue(stderr.contains("unavailable"), stderr);
    assertFalse(stderr.contains("s3cret-pw"), stderr);
  }

  @Test
  void anSqliteFileThatCannotBeCreatedStopsServeNamingTheFile() throws Exception {
    Files.writeString(dir.resolve("not-a-directory"), "x");
    String stderr = serve("{\"http\": {\"port\": 0}, \"store\": {\"path\": \"" + dir.resolve("not-a-directory/agentbus.db") + "\"}}");
    assertTrue(stderr.contains("conversation store sqlite (" + dir.resolve("not-a-directory/agentbus.db") + ") cannot be opened"),
      stderr);
  }

  @Test
  void postgresWithoutAUriIsAConfigurationError() throws Exception {
    String stderr = serve("{\"store\": {\"type\": \"postgres\"}}");
    assertTrue(stderr.contains("field 'store.uri' is required with \"type\": \"postgres\""), stderr);
  }
}
