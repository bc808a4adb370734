package io.agentbus.mcp;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.InteropServers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The MCP client against the real server-filesystem over stdio. */
@Integration
@ExtendWith(VertxExtension.class)
class FilesystemInteropTest {

  @Test
  void readsInsideTheRootAndIsDeniedOutside(Vertx vertx, VertxTestContext ctx, @TempDir Path root, @TempDir Path outside) throws Exception {
    Path inside = Files.writeString(root.resolve("hello.txt"), "hello from agentbus");
    Path secret = Files.writeString(outside.resolve("secret.txt"), "nope").toRealPath();
    String insidePath = inside.toRealPath().toString();
    McpClient client = McpClient.create(vertx, InteropServers.filesystem("fs", root.toRealPath()));
    client.connect()
      .compose(init -> {
        ctx.verify(() -> assertTrue(client.tools().stream().anyMatch(t -> t.getString("name").equals("read_text_file"))));
        return client.callTool("read_text_file", new JsonObject().put("path", insidePath), null);
      })
      .compose(ok -> {
        ctx.verify(() -> {
          assertFalse(ok.getBoolean("isError", false));
          assertEquals("hello from agentbus", ok.getJsonArray("content").getJsonObject(0).getString("text"));
        });
        return client.callTool("read_text_file", new JsonObject().put("path", secret.toString()), null);
      })
      .eventually(client::close)
      .onComplete(ctx.succeeding(denied -> ctx.verify(() -> {
        assertTrue(denied.getBoolean("isError", false));
        assertTrue(denied.getJsonArray("content").getJsonObject(0).getString("text").contains("Access denied"));
        ctx.completeNow();
      })));
  }
}
