package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.http.HttpApiVerticle;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** What {@code serve} tells a new user: a taken port, the loopback warning, demo mode for the chat page. */
class ServeMessagesTest {

  private Vertx vertx;

  @BeforeEach
  void vertx() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void close() {
    Cli.await(vertx.close());
  }

  @Test
  void aTakenPortIsNamedWithHowToPickAnother(@TempDir Path dir) throws Exception {
    assumeTrue(System.getenv("AGENTBUS_PORT") == null, "AGENTBUS_PORT would override the configured port");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int port = taken.getLocalPort();
      Path agent = Files.writeString(dir.resolve("agent.json"), "{\"model\": {\"demo\": true}, \"http\": {\"port\": " + port + "}}");
      Path mcp = Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {}}");
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int code = ServeCommand.run(vertx, new CliArgs(List.of("--config", agent.toString(), "--mcp-config", mcp.toString()),
        Set.of(), Set.of("config", "mcp-config")), System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
      String message = err.toString(StandardCharsets.UTF_8);
      assertEquals(Cli.FAILURE, code, message);
      assertTrue(message.contains("port " + port + " on 127.0.0.1 is already in use"), message);
      assertTrue(message.contains("AGENTBUS_PORT=0 for any free port"), message);
    }
  }

  @Test
  void theLoopbackWarningMentionsAHostOnlyWhenOneWasConfigured() {
    Logger logger = (Logger) LoggerFactory.getLogger(HttpApiVerticle.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      Cli.await(vertx.deployVerticle(new HttpApiVerticle(new HttpApiOptions().setPort(0))));
      Cli.await(vertx.deployVerticle(new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("10.1.2.3"))));
      List<String> warnings = appender.list.stream().map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.startsWith("No API tokens configured")).toList();
      assertEquals(2, warnings.size(), warnings::toString);
      assertFalse(warnings.get(0).contains("configured host"), warnings.get(0));
      assertTrue(warnings.get(1).contains("configured host '10.1.2.3' ignored"), warnings.get(1));
    } finally {
      logger.detachAppender(appender);
    }
  }

  @Test
  void theChatPageLearnsAboutDemoModeAndHasAnIcon() {
    HttpApiVerticle demo = new HttpApiVerticle(new HttpApiOptions().setPort(0)).setDemoModel(true);
    HttpApiVerticle real = new HttpApiVerticle(new HttpApiOptions().setPort(0));
    Cli.await(vertx.deployVerticle(demo));
    Cli.await(vertx.deployVerticle(real));
    HttpClient http = vertx.createHttpClient();
    assertEquals(new JsonObject().put("demo", true), new JsonObject(get(http, demo.actualPort(), "/info")));
    assertEquals(new JsonObject().put("demo", false), new JsonObject(get(http, real.actualPort(), "/info")));
    String page = get(http, demo.actualPort(), "/");
    assertTrue(page.contains("rel=\"icon\""), "favicon");
    assertTrue(page.contains("fetch(\"/info\")"), "the page asks for the demo flag");
    assertTrue(page.contains("tool_call_progress"), "the page shows progress");
  }

  private static String get(HttpClient http, int port, String path) {
    return Cli.await(http.request(HttpMethod.GET, port, "127.0.0.1", path)
      .compose(req -> req.send())
      .compose(HttpClientResponse::body)).toString(StandardCharsets.UTF_8);
  }
}
