package io.agentbus.cli;

import io.agentbus.cluster.ClusterNodes;
import io.agentbus.cluster.ClusterOptions;
import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.http.HttpApiOptions;
import io.agentbus.http.HttpApiVerticle;
import io.agentbus.mcp.transport.stdio.ChildProcessReaper;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.options.ConfigException;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.net.BindException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agentbus serve [--config FILE] [--mcp-config FILE]}: one verticle per MCP server,
 * the catalog, the dispatcher, the conversation verticles and the HTTP API. It listens
 * without waiting for the MCP servers: they connect in the background, {@code /health} shows
 * each one's state, and a server's tools join the catalog once it is READY. Runs until
 * SIGTERM (or Ctrl-C), then drains: new turns are refused, running turns may finish within
 * {@code drainTimeoutMs}, the HTTP API closes and the MCP servers are shut down cleanly.
 *
 * <p>With {@code --cluster} (or {@code cluster.enabled}) it joins a Hazelcast cluster first and
 * runs only the roles {@code --roles} names (default all): a node without {@code mcp} calls the
 * MCP servers of other nodes over the clustered bus, one without {@code http} serves no API, one
 * without {@code conversation} runs no turns.
 */
public final class ServeCommand {

  private static final Logger LOG = LoggerFactory.getLogger(ServeCommand.class);
  /** Time for closing the API and the MCP servers after the drain. */
  private static final long CLOSE_TIMEOUT_MS = 15_000;

  private ServeCommand() {
  }

  /**
   * {@code serve} from the command line: starts Vert.x (clustered when asked), runs, and closes
   * it.
   *
   * @throws ConfigException when a config file or option is wrong
   */
  static int main(CliArgs args, VertxOptions vertxOptions, PrintStream out, PrintStream err) {
    AgentConfig agent = Cli.loadAgentConfig(args);
    ClusterOptions cluster = clusterOptions(agent, args);
    // a cluster node without the mcp role starts no MCP server: its mcp.json is not read
    McpConfig mcp = !cluster.isEnabled() || cluster.has(ClusterOptions.Role.MCP) ? Cli.loadMcpConfig(args) : new McpConfig(List.of());
    Vertx vertx;
    try {
      vertx = cluster.isEnabled() ? Cli.await(ClusterNodes.startVertx(vertxOptions, cluster)) : Vertx.vertx(vertxOptions);
    } catch (RuntimeException e) {
      return Cli.fail(err, "cannot join the cluster '" + cluster.getName() + "': " + e.getMessage());
    }
    FatalErrors.install(vertx);
    if (vertx.isClustered()) {
      AgentbusMetrics.forNode(vertx, cluster.effectiveNodeName());
    }
    try {
      return run(vertx, agent, mcp, cluster, args, out, err);
    } finally {
      Cli.await(vertx.close().otherwiseEmpty());
    }
  }

  /**
   * The cluster settings: {@code cluster} of the agent config, {@code --cluster} turning it on
   * and {@code --roles} choosing what this node runs.
   *
   * @throws ConfigException for {@code --roles} without a cluster, or an unknown role
   */
  static ClusterOptions clusterOptions(AgentConfig agent, CliArgs args) {
    ClusterOptions cluster = new ClusterOptions(agent.cluster());
    if (args.flag("cluster")) {
      cluster.setEnabled(true);
    }
    String roles = args.option("roles", null);
    if (roles != null) {
      if (!cluster.isEnabled()) {
        throw new ConfigException("--roles needs --cluster (or cluster.enabled): a single node runs every role");
      }
      try {
        cluster.setRoles(ClusterOptions.parseRoles(roles));
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--roles: " + e.getMessage(), e);
      }
    }
    return cluster;
  }

  /** Runs {@code serve} on a Vert.x the caller owns, with the config files {@code args} names, not clustered. */
  public static int run(Vertx vertx, CliArgs args, PrintStream out, PrintStream err) {
    AgentConfig agent = Cli.loadAgentConfig(args);
    return run(vertx, agent, Cli.loadMcpConfig(args), new ClusterOptions(agent.cluster()).setEnabled(false), args, out, err);
  }

  private static int run(Vertx vertx, AgentConfig agent, McpConfig mcp, ClusterOptions cluster, CliArgs args, PrintStream out,
                         PrintStream err) {
    boolean clustered = vertx.isClustered();
    Launcher.Launched launched;
    try {
      launched = Cli.await(Launcher.start(vertx, agent, mcp, false, clustered ? cluster.getRoles() : null));
    } catch (RuntimeException e) {
      return Cli.fail(err, "cannot start Agentbus: " + e.getMessage());
    }
    String nodeName = clustered ? cluster.effectiveNodeName() : "local";
    try {
      Cli.await(ClusterNodes.announce(vertx, clustered ? cluster.getName() : null, nodeName, clustered ? cluster.roleNames() : List.of("http", "conversation", "mcp"),
        launched.agentbus().servers()));
    } catch (RuntimeException e) {
      Cli.await(launched.close().otherwiseEmpty());
      return Cli.fail(err, "cannot announce this node to the cluster: " + e.getMessage());
    }
    if (clustered) {
      LOG.info("Agentbus node {} joined cluster {}: roles {}, {} members", nodeName, cluster.getName(),
        String.join(",", cluster.roleNames()), ClusterNodes.liveNodes(vertx).size());
    }
    if (clustered && !cluster.has(ClusterOptions.Role.HTTP)) {
      return awaitStop(vertx, agent, launched, List.of(), null);
    }
    HttpApiOptions httpOptions = new HttpApiOptions(agent.http()).setServers(launched.agentbus().servers());
    // One listener per event loop, each next to a conversation instance on the same loop, so
    // a turn runs where its request arrived (see ConversationVerticle).
    HttpApiVerticle.Group group = new HttpApiVerticle.Group();
    String apiDeployment;
    try {
      HttpApiOptions onePort = httpOptions.getPort() != 0 ? httpOptions
        : new HttpApiOptions(httpOptions).setPort(HttpApiVerticle.Group.freePort(httpOptions.effectiveHost()));
      boolean demo = launched.demoModel() != null;
      apiDeployment = Cli.await(vertx.deployVerticle(() -> group.newMember(onePort).setDemoModel(demo),
        new DeploymentOptions().setInstances(Launcher.eventLoops(agent))));
    } catch (RuntimeException e) {
      Cli.await(launched.close().otherwiseEmpty());
      return Cli.fail(err, "cannot start the HTTP API: " + (portInUse(e)
        ? "port " + httpOptions.getPort() + " on " + httpOptions.effectiveHost() + " is already in use (another Agentbus?)."
          + " Choose another one with AGENTBUS_PORT=PORT, or AGENTBUS_PORT=0 for any free port (or http.port in "
          + args.option("config", Cli.DEFAULT_AGENT_CONFIG) + ")"
        : e.getMessage()));
    }
    List<HttpApiVerticle> apis = group.members();
    HttpApiVerticle api = apis.get(0);
    LOG.info("Agentbus listening on http://{}:{}", api.host(), api.actualPort());
    List<String> servers = launched.agentbus().servers();
    if (!servers.isEmpty()) {
      LOG.info("MCP servers start in the background: {} (GET /health shows each one's state)", String.join(", ", servers));
      launched.agentbus().serversReady().onSuccess(v -> LOG.info("all {} MCP servers are ready", servers.size()));
    }
    return awaitStop(vertx, agent, launched, apis, apiDeployment);
  }

  /** Runs until SIGTERM, then drains and closes. */
  private static int awaitStop(Vertx vertx, AgentConfig agent, Launcher.Launched launched, List<HttpApiVerticle> apis,
                               String apiDeployment) {
    CountDownLatch stopped = new CountDownLatch(1);
    ChildProcessReaper.graceAtExit(agent.drainTimeoutMs() + CLOSE_TIMEOUT_MS);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      LOG.info("stopping: refusing new turns, letting running ones finish (up to {} ms)", agent.drainTimeoutMs());
      List<Future<Void>> drains = new ArrayList<>();
      apis.forEach(a -> drains.add(a.drain()));
      drains.add(launched.agentbus().drain(agent.drainTimeoutMs()));
      Future.join(drains)
        .eventually(() -> apiDeployment == null ? Future.succeededFuture() : vertx.undeploy(apiDeployment))
        .eventually(launched::close)
        .onComplete(ar -> {
          LOG.info("Agentbus stopped");
          stopped.countDown();
        });
      try {
        stopped.await(agent.drainTimeoutMs() + CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "agentbus-shutdown"));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Cli.OK;
  }

  /** @return whether the failure (or a cause of it) says the address is taken */
  static boolean portInUse(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof BindException
        || (t.getMessage() != null && t.getMessage().toLowerCase(Locale.ROOT).contains("address already in use"))) {
        return true;
      }
    }
    return false;
  }
}
