package io.agentbus.demo;

import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.McpClient;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@Integration
@ExtendWith(VertxExtension.class)
class DemoMcpServerTest {

  @Test
  void calculatorHandlesPrecedenceAndRejectsJunk() {
    assertEquals(14.0, Calculator.evaluate("2 + 3 * 4"));
    assertEquals(20.0, Calculator.evaluate("(2+3)*4"));
    assertEquals(-8.0, Calculator.evaluate("-2^3"));
    assertEquals(512.0, Calculator.evaluate("2^3^2"));
    assertEquals(0.5, Calculator.evaluate("1/2"));
    assertThrows(IllegalArgumentException.class, () -> Calculator.evaluate("1/0"));
    assertThrows(IllegalArgumentException.class, () -> Calculator.evaluate("2 +"));
    assertThrows(IllegalArgumentException.class, () -> Calculator.evaluate("System.exit(1)"));
    assertThrows(IllegalArgumentException.class, () -> Calculator.evaluate("(1"));
  }

  @Test
  void servesItsToolsOverStdio(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, InteropServers.javaMain("demo", DemoMcpServer.class));
    client.connect()
      .compose(init -> Future.all(
        client.callTool("get_weather", new JsonObject().put("city", "paris"), null),
        client.callTool("get_weather", new JsonObject().put("city", "Atlantis"), null),
        client.callTool("calculate", new JsonObject().put("expression", "(2+3)*4"), null),
        client.callTool("current_time", new JsonObject().put("timezone", "Europe/Paris"), null)))
      .eventually(client::close)
      .onComplete(ctx.succeeding(all -> ctx.verify(() -> {
        assertEquals(3, client.tools().size());
        JsonObject paris = all.resultAt(0);
        assertFalse(paris.getBoolean("isError", false));
        assertTrue(text(paris).startsWith("Paris: light rain, 11 °C"), text(paris));
        assertEquals(11, paris.getJsonObject("structuredContent").getInteger("temperature_c"));
        JsonObject atlantis = all.resultAt(1);
        assertTrue(atlantis.getBoolean("isError"));
        assertTrue(text(atlantis).contains("Known cities"));
        assertEquals("(2+3)*4 = 20", text(all.resultAt(2)));
        assertTrue(text(all.resultAt(3)).endsWith("in Europe/Paris"));
        ctx.completeNow();
      })));
  }

  private static String text(JsonObject result) {
    return result.getJsonArray("content").getJsonObject(0).getString("text");
  }
}
