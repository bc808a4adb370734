package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.WhoAmIServer;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config files as {@code serve} reads them: a tenant-scoped server in mcp.json with
 * {@code ${tenant.*}} placeholders next to a {@code ${VAR}}, and the {@code tenants} section of
 * agent.json, reach the server's connections.
 */
@Integration
class LauncherTenantsTest {

  @Test
  void theTenantsOfTheAgentConfigReachTheScopedConnections(@TempDir Path dir) throws Exception {
    JsonObject who = InteropServers.javaMain("who", WhoAmIServer.class).toJson();
    Path mcp = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("who", new JsonObject().put("command", who.getString("command")).put("args", who.getJsonArray("args"))
        .put("scope", "tenant")
        .put("env", new JsonObject().put("WHO_TENANT", "${tenant.id}@${HOME:-home}").put("WHO_SECRET", "${tenant.secret.TOKEN}"))))
      .encode());
    Path agent = Files.writeString(dir.resolve("agent.json"), new JsonObject()
      .put("model", new JsonObject().put("demo", true))
      .put("store", new JsonObject().put("type", "memory"))
      .put("tenants", new JsonObject().put("acme", new JsonObject().put("secrets", new JsonObject().put("TOKEN", "acme-secret-1"))))
      .encode());
    Vertx vertx = Vertx.vertx();
    try {
      CliArgs args = new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()), Set.of(),
        Set.of("config", "mcp-config"));
      Launcher.Launched launched = Cli.await(Launcher.start(vertx, Cli.loadAgentConfig(args), Cli.loadMcpConfig(args)));
      DeliveryOptions call = new DeliveryOptions().addHeader(Actions.HEADER, Actions.TOOLS_CALL);
      JsonObject reply = Cli.await(vertx.eventBus().<JsonObject>request(Addresses.mcp("who"),
        new JsonObject().put("name", "whoami").put("tenant", "acme"), call)).body();
      JsonObject me = new JsonObject(reply.getJsonArray("content").getJsonObject(0).getString("text"));
      String home = System.getenv("HOME") == null ? "home" : System.getenv("HOME");
      assertEquals("acme@" + home, me.getString("tenant"));
      assertEquals("acme-secret-1", me.getString("secret"));
      try {
        Cli.await(vertx.eventBus().request(Addresses.mcp("who"), new JsonObject().put("name", "whoami").put("tenant", "globex"), call));
        throw new AssertionError("globex has no secret");
      } catch (ReplyException e) {
        assertTrue(e.getMessage().contains("tenant 'globex' has no secret 'TOKEN'"), e.getMessage());
      }
      Cli.await(launched.close());
    } finally {
      Cli.await(vertx.close());
    }
  }
}
