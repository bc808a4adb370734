package io.agentbus.cli;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.cluster.ClusterOptions.Role;
import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.mcp.auth.EncryptedFileTokenStore;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.model.Provider;
import io.agentbus.store.StoreOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts Agentbus from its config files for {@code serve} and {@code chat}. Without an API
 * key it first starts the mock model in demo mode, in-process but over real HTTP on
 * loopback, and says so loudly.
 */
final class Launcher {

  private static final Logger LOG = LoggerFactory.getLogger(Launcher.class);

  /** A running Agentbus and, in demo mode, the mock model it talks to. */
  record Launched(Agentbus agentbus, MockModelServer demoModel) {

    Future<Void> close() {
      Future<Void> closed = agentbus.close();
      return demoModel == null ? closed : closed.eventually(demoModel::close);
    }
  }

  private Launcher() {
  }

  /** @return how many conversation instances (and HTTP listeners) to deploy: one per event loop */
  static int eventLoops(AgentConfig agent) {
    return agent.conversationInstances() != null ? agent.conversationInstances() : AgentbusOptions.DEFAULT_CONVERSATION_INSTANCES;
  }

  /** Starts Agentbus once every MCP server made its first connection attempt ({@code chat}). */
  static Future<Launched> start(Vertx vertx, AgentConfig agent, McpConfig mcp) {
    return start(vertx, agent, mcp, true);
  }

  /**
   * @param awaitServers whether to complete only once every MCP server made its first
   *     connection attempt ({@link Agentbus#deploy}) or as soon as the services listen, the
   *     servers connecting in the background ({@link Agentbus#start}, for {@code serve})
   */
  static Future<Launched> start(Vertx vertx, AgentConfig agent, McpConfig mcp, boolean awaitServers) {
    return start(vertx, agent, mcp, awaitServers, null);
  }

  /**
   * @param roles what this cluster node runs, or {@code null} for everything: without
   *     {@code mcp} no MCP server starts here, without {@code conversation} no turn runs here
   *     (and no demo model is opened, nor the store unless a server of this node keeps OAuth
   *     tokens in it)
   */
  static Future<Launched> start(Vertx vertx, AgentConfig agent, McpConfig mcp, boolean awaitServers, Set<Role> roles) {
    boolean conversations = roles == null || roles.contains(Role.CONVERSATION);
    boolean servers = roles == null || roles.contains(Role.MCP);
    Future<MockModelServer> demo = !agent.demoModel() || !conversations ? Future.succeededFuture()
      : MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO).setLatencyMs(agent.demoLatencyMs()));
    return demo.compose(mock -> {
      ConversationOptions conversation = new ConversationOptions(agent.conversation());
      if (mock != null) {
        warnDemo(mock.actualPort());
        ModelOptions model = conversation.getModel();
        conversation.setModel(new ModelOptions(model).setProvider(Provider.ANTHROPIC.id()).setApiKey("demo-mode")
          .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("agentbus-demo"));
      }
      AgentbusOptions options = new AgentbusOptions().setMcpServers(servers ? mcp.servers() : List.of())
        .setConversation(conversation).setConversations(conversations).setTenants(agent.tenants())
        .setStore(storeOptions(agent, mcp, conversations, servers, System.getenv()));
      if (agent.conversationInstances() != null) {
        options.setConversationInstances(agent.conversationInstances());
      }
      return (awaitServers ? Agentbus.deploy(vertx, options) : Agentbus.start(vertx, options))
        .map(agentbus -> new Launched(agentbus, mock))
        .recover(err -> (mock == null ? Future.<Void>succeededFuture() : mock.close()).transform(ar -> Future.failedFuture(err)));
    });
  }

  /**
   * @return the store this node opens: the configured one where conversations run, and on an
   *     MCP-only node too when it keeps the OAuth tokens of its servers there
   *     ({@code AGENTBUS_TOKEN_KEY} set and a server with {@code oauth}), where the other nodes
   *     find them; else memory (nothing opened)
   */
  static StoreOptions storeOptions(AgentConfig agent, McpConfig mcp, boolean conversations, boolean servers,
                                   Map<String, String> env) {
    String key = env.get(EncryptedFileTokenStore.KEY_ENV);
    boolean keepsTokens = servers && key != null && !key.isBlank()
      && mcp.servers().stream().anyMatch(s -> !s.isDisabled() && s.getOauth() != null);
    return conversations || keepsTokens ? agent.store() : new StoreOptions().setType(StoreOptions.Type.MEMORY);
  }

  private static void warnDemo(int port) {
    LOG.warn("================================================================================");
    LOG.warn(" DEMO MODE: neither ANTHROPIC_API_KEY nor OPENAI_API_KEY is set (and no apiKey in");
    LOG.warn(" conf/agent.json), so Agentbus talks to its built-in mock model on");
    LOG.warn(" http://127.0.0.1:{}. Its answers are canned; the tool calls are real.", port);
    LOG.warn("================================================================================");
  }
}
