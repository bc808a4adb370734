package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.testing.Integration;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code java -jar target/agentbus.jar serve} without {@code --cluster} (and without
 * {@code cluster.enabled}) loads no Hazelcast class at all: the JVM's class-loading log of the
 * process, up to the point where it listens, names none. (On the test class path Vert.x itself
 * would load the Hazelcast cluster manager through its service registration, which the shaded
 * jar leaves out: this is why the test runs the jar.)
 */
@Integration
@ExtendWith(VertxExtension.class)
class ServeWithoutClusterTest {

  private ServeChild child;

  @AfterEach
  void kill() {
    if (child != null) {
      child.kill();
    }
  }

  @Test
  void noHazelcastClassIsLoaded(Vertx vertx, VertxTestContext ctx, @TempDir Path dir) throws Exception {
    Path mcp = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {}}");
    Path agent = Files.writeString(dir.resolve("agent.json"),
      "{\"model\": {\"demo\": true}, \"http\": {\"port\": 0}, \"store\": {\"type\": \"memory\"}}");
    child = ServeChild.spawnJar(vertx, agent, mcp, List.of("-Xlog:class+load=info"));
    child.await("Agentbus listening on http://127.0.0.1:(\\d+)").onComplete(ctx.succeeding(m -> ctx.verify(() -> {
      assertTrue(child.lines.stream().anyMatch(l -> l.contains("[class,load] io.vertx.core.")),
        "the class-loading log is there");
      assertFalse(child.lines.stream().anyMatch(l -> l.contains("[class,load] com.hazelcast.")),
        () -> String.join("\n", child.lines.stream().filter(l -> l.contains("hazelcast")).toList()));
      ctx.completeNow();
    })));
  }
}
