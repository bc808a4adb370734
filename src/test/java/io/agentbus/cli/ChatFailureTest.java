package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The terminal chat with a real (configured) model that cannot be reached: the banner does
 * not claim demo mode, the failed turn is printed once, and the log lines go to the file the
 * banner names instead of the prompt. No MCP servers, so no child process.
 */
class ChatFailureTest {

  @Test
  void aFailedTurnIsPrintedOnceAndTheLogStaysOffThePrompt(@TempDir Path dir) throws Exception {
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      closedPort = probe.getLocalPort();
    }
    Path agent = Files.writeString(dir.resolve("agent.json"), "{\"model\": {\"provider\": \"anthropic\", \"model\": \"claude-test\","
      + " \"apiKey\": \"sk-test\", \"baseUrl\": \"http://127.0.0.1:" + closedPort + "\", \"maxRetries\": 0}}");
    Path mcp = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {}}");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Vertx vertx = Vertx.vertx();
    try {
      int code = ChatCommand.run(vertx, new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()),
          Set.of(), Set.of("config", "mcp-config")),
        new ByteArrayInputStream("hello\n\n".getBytes(StandardCharsets.UTF_8)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
      String text = out.toString(StandardCharsets.UTF_8);
      assertEquals(Cli.OK, code, err.toString(StandardCharsets.UTF_8));
      assertTrue(text.startsWith("Agentbus chat with claude-test (anthropic).\nMCP servers: none."), text);
      assertFalse(text.contains("DEMO"), text);
      assertEquals(1, text.split("turn failed", -1).length - 1, text);
      assertEquals("", err.toString(StandardCharsets.UTF_8));
      Matcher log = Pattern.compile("Log: (\\S+)\\.").matcher(text);
      assertTrue(log.find(), text);
      Path file = Path.of(log.group(1));
      assertTrue(Files.readString(file).contains("turn failed"), "the WARN line went to the log file");
      Files.deleteIfExists(file);
    } finally {
      Cli.await(vertx.close());
    }
  }
}
