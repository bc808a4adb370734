package io.agentbus.testing;

import io.agentbus.mcp.McpClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Fetches the real tool definitions of server-everything and server-filesystem over stdio. */
public final class RealTools {

  private RealTools() {
  }

  /** @return {@code {"everything": [...], "filesystem": [...]}} as the servers list them */
  public static Future<Map<String, List<JsonObject>>> fetch(Vertx vertx, Path fsRoot) {
    McpClient everything = McpClient.create(vertx, InteropServers.everythingStdio("everything"));
    McpClient filesystem = McpClient.create(vertx, InteropServers.filesystem("filesystem", fsRoot));
    Map<String, List<JsonObject>> out = new LinkedHashMap<>();
    return Future.all(everything.connect(), filesystem.connect())
      .map(v -> {
        out.put("everything", everything.tools());
        out.put("filesystem", filesystem.tools());
        return out;
      })
      .eventually(() -> Future.join(everything.close(), filesystem.close()));
  }
}
