package io.agentbus.mcp;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.EverythingChecks;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxTestContext;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The MCP client against the real server-everything over real stdio. */
@Integration
class StdioEverythingInteropTest extends EverythingChecks {

  @Override
  protected Future<McpServerOptions> startServer(Vertx vertx) {
    return Future.succeededFuture(InteropServers.everythingStdio("everything").setEnv(Map.of("AGENTBUS_TEST_VAR", "configured")));
  }

  @Test
  void describesTheChildProcess() {
    assertTrue(client.initializeResult().getJsonObject("capabilities").containsKey("tools"));
    assertTrue(client.describe().getLong("pid") > 0);
  }

  @Test
  void listsEveryToolExceptTaskOnlyOnes(VertxTestContext ctx) {
    client.request("tools/list", null).onComplete(ctx.succeeding(raw -> ctx.verify(() -> {
      Set<String> all = raw.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).collect(Collectors.toSet());
      Set<String> taskOnly = raw.getJsonArray("tools").stream().map(t -> (JsonObject) t)
        .filter(t -> "required".equals(t.getJsonObject("execution", new JsonObject()).getString("taskSupport")))
        .map(t -> t.getString("name")).collect(Collectors.toSet());
      Set<String> listed = client.tools().stream().map(t -> t.getString("name")).collect(Collectors.toSet());
      assertFalse(taskOnly.isEmpty(), "server-everything has a task-only tool");
      all.removeAll(taskOnly);
      assertEquals(all, listed);
      ctx.completeNow();
    })));
  }

  @Test
  void theRelistAfterListChangedIsTheCurrentList(VertxTestContext ctx) {
    // the list_changed sent right after initialized is folded into connect()'s own listing
    listChangedArrivesOnTheServerStreamAndTriggersARelist(ctx);
  }

  @Test
  void pingIsAnswered(VertxTestContext ctx) {
    client.ping().onComplete(ctx.succeedingThenComplete());
  }

  @Test
  void childGetsOnlyTheSafeEnvironmentPlusItsConfig(VertxTestContext ctx) {
    client.callTool("get-env", new JsonObject(), null)
      .onComplete(ctx.succeeding(result -> ctx.verify(() -> {
        JsonObject env = new JsonObject(result.getJsonArray("content").getJsonObject(0).getString("text"));
        assertEquals("configured", env.getString("AGENTBUS_TEST_VAR"));
        Set<String> allowed = Set.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "TMPDIR", "TZ", "AGENTBUS_TEST_VAR");
        for (String key : env.fieldNames()) {
          assertTrue(allowed.contains(key) || key.startsWith("LC_"), "leaked variable " + key);
        }
        ctx.completeNow();
      })));
  }
}
