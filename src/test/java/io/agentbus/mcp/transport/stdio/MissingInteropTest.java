package io.agentbus.mcp.transport.stdio;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpException;
import io.agentbus.mcp.McpServerOptions;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A server pointing into interop/node_modules before the pinned servers were installed. */
@ExtendWith(VertxExtension.class)
class MissingInteropTest {

  private static final String SCRIPT = "interop/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";

  private static McpServerOptions files(Path cwd) {
    return new McpServerOptions().setName("files").setCommand("node").setArgs(List.of(SCRIPT, "."))
      .setCwd(cwd.toString());
  }

  @Test
  void aMissingScriptNamesTheInstallCommand(@TempDir Path dir) {
    String message = MissingInterop.check(files(dir));
    assertTrue(message.startsWith("cannot start server 'files': " + dir.resolve(SCRIPT) + " does not exist"), message);
    assertTrue(message.contains("bash " + dir.resolve("interop/install.sh")), message);
    assertTrue(message.contains("npm ci"), message);
  }

  @Test
  void anInstalledScriptOrAnotherCommandPasses(@TempDir Path dir) throws Exception {
    Files.createDirectories(dir.resolve(SCRIPT).getParent());
    Files.writeString(dir.resolve(SCRIPT), "");
    assertNull(MissingInterop.check(files(dir)));
    assertNull(MissingInterop.check(new McpServerOptions().setName("x").setCommand("node").setArgs(List.of("/nowhere/x.js"))));
  }

  @Test
  void theTransportFailsToStartWithThatMessageAndSpawnsNothing(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) {
    vertx.runOnContext(v -> {
      StdioTransport transport = new StdioTransport(vertx, vertx.getOrCreateContext(), files(dir));
      transport.start(msg -> { }).onComplete(ctx.failing(err -> ctx.verify(() -> {
        assertTrue(err instanceof McpException, err.toString());
        assertTrue(err.getMessage().contains("interop/install.sh"), err.getMessage());
        assertNull(transport.describe().getValue("pid"));
        ctx.completeNow();
      })));
    });
  }
}
