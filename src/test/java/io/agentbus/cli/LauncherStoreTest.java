package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.options.EnvExpander;
import io.agentbus.store.StoreOptions.Type;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which store a node opens: where conversations run, and where its OAuth servers keep their tokens. */
class LauncherStoreTest {

  private static final Map<String, String> KEY = Map.of("AGENTBUS_TOKEN_KEY", "AAAAAAAAAAAAAAAAAAAAAA==");
  private final AgentConfig agent = AgentConfig.fromJson(new JsonObject()
    .put("store", new JsonObject().put("type", "postgres").put("uri", "postgresql://agent@db:5432/agentbus")), Map.of());

  private static McpConfig servers(boolean oauth) {
    JsonObject server = new JsonObject().put("url", "http://127.0.0.1:1/mcp");
    if (oauth) {
      server.put("oauth", new JsonObject());
    }
    return McpConfig.fromJson(new JsonObject().put("mcpServers", new JsonObject().put("s", server)), EnvExpander.of(Map.of()));
  }

  @Test
  void conversationsAlwaysOpenTheConfiguredStore() {
    assertEquals(Type.POSTGRES, Launcher.storeOptions(agent, servers(false), true, true, Map.of()).getType());
    assertEquals(Type.POSTGRES, Launcher.storeOptions(agent, servers(false), true, false, Map.of()).getType());
  }

  @Test
  void anMcpOnlyNodeOpensItOnlyToKeepItsServersOAuthTokens() {
    assertEquals(Type.POSTGRES, Launcher.storeOptions(agent, servers(true), false, true, KEY).getType());
    assertEquals(Type.MEMORY, Launcher.storeOptions(agent, servers(true), false, true, Map.of()).getType(), "no key: memory only");
    assertEquals(Type.MEMORY, Launcher.storeOptions(agent, servers(false), false, true, KEY).getType(), "no OAuth server");
    assertEquals(Type.MEMORY, Launcher.storeOptions(agent, servers(true), false, false, KEY).getType(), "no server here");
  }
}
