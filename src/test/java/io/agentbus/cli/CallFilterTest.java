package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.cli.AgentMain;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code call} honours {@code allowedTools} / {@code disabledTools} before it starts anything,
 * and names the server once in its errors. (The server's command does not exist: no child
 * process runs; AgentMainTest covers real servers.)
 */
class CallFilterTest {

  record Run(int code, String out, String err) {
  }

  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AgentMain.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
      new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aHiddenToolIsRefusedUnlessIncludeHiddenIsGiven(@TempDir Path dir) throws Exception {
    Path mcp = Files.writeString(dir.resolve("mcp.json"), """
      {"mcpServers": {"files": {"command": "/nonexistent/agentbus-test-server",
        "allowedTools": ["read_*", "list_*"], "disabledTools": ["read_secret"]}}}
      """);
    Run write = run("call", "files", "write_file", "{\"path\":\"x\"}", "--mcp-config", mcp.toString());
    assertEquals(Cli.FAILURE, write.code());
    assertEquals("agentbus: tool 'write_file' of server 'files' is hidden by its allowedTools/disabledTools in " + mcp
      + " (add --include-hidden to call it anyway)", write.err().strip());
    assertTrue(run("call", "files", "read_secret", "--mcp-config", mcp.toString()).err().contains("is hidden"));

    // Allowed, or explicitly included: the call goes ahead (and fails to start the server, naming it once).
    for (Run r : List.of(run("call", "files", "read_file", "--mcp-config", mcp.toString()),
      run("call", "files", "write_file", "--include-hidden", "--mcp-config", mcp.toString()))) {
      assertEquals(Cli.FAILURE, r.code());
      assertTrue(r.err().startsWith("agentbus: cannot start server 'files' (/nonexistent/agentbus-test-server)"), r.err());
      assertFalse(r.err().contains("server 'files': "), r.err());
    }
  }

  @Test
  void theHelpDocumentsIncludeHidden() {
    Run help = run("--help");
    assertTrue(help.out().contains("--include-hidden"), help.out());
  }

  @Test
  void aMessageNamesItsServerOnce() {
    assertEquals("server 't' exited (code 1): boom", Cli.aboutServer("t", new RuntimeException("server 't' exited (code 1): boom")));
    assertEquals("server 't': connection reset", Cli.aboutServer("t", new RuntimeException("connection reset")));
  }
}
