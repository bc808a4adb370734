package io.agentbus.bench;

import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.ServerSocket;

/**
 * The mock model server in its own process, so that its CPU is not counted as the runtime's:
 * {@code MockMain 'MockModelOptions JSON' [instances] [--probe-port P]}. Prints
 * {@code READY <port>} on stdout once every instance listens (instances share the port, one
 * event loop each), then runs until stdin closes. With {@code --probe-port}, each instance's
 * event loop runs a {@link FloorProbe} timer and the worst lag goes to the harness as
 * {@code mock}.
 */
public final class MockMain {

  private MockMain() {
  }

  /** One mock instance on its own event loop, with the event-loop lag probe when asked. */
  public static final class Instance extends VerticleBase {
    @Override
    public Future<?> start() {
      FloorProbe.Reporter.of(FloorProbe.MOCK, config().getInteger("probePort", 0)).probe(vertx);
      return MockModelServer.start(vertx, new MockModelOptions(config())); // ignores probePort
    }
  }

  public static void main(String[] args) throws Exception {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
      .setLevel(ch.qos.logback.classic.Level.WARN);
    JsonObject options = new JsonObject(args[0]);
    int instances = args.length > 1 && !args[1].startsWith("--") ? Integer.parseInt(args[1]) : 1;
    int probePort = FloorProbe.portArg(args);
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    options.put("port", port).put("host", "127.0.0.1");
    if (probePort > 0) {
      options.put("probePort", probePort);
    }
    Vertx vertx = Vertx.vertx();
    vertx.deployVerticle(Instance.class, new DeploymentOptions().setInstances(instances).setConfig(options))
      .toCompletionStage().toCompletableFuture().get();
    System.out.println("READY " + port);
    System.out.flush();
    while (System.in.read() >= 0) {
      // runs until the parent closes our stdin (or dies)
    }
    vertx.close();
    System.exit(0);
  }
}
