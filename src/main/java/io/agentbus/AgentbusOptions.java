package io.agentbus;

import io.agentbus.conversation.ConversationOptions;
import io.agentbus.dispatch.DispatcherOptions;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.Tenants;
import io.agentbus.store.StoreOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@link Agentbus#deploy} runs: MCP servers, dispatcher and conversation settings, and
 * the conversation store. Embedded, the store defaults to {@code memory} (nothing on disk
 * unless asked for); {@code serve} and {@code chat} default to the SQLite file of
 * {@link StoreOptions#DEFAULT_PATH}.
 */
public class AgentbusOptions {

  /** By default one conversation verticle instance per core. */
  public static final int DEFAULT_CONVERSATION_INSTANCES = Math.max(1, Runtime.getRuntime().availableProcessors());

  private List<McpServerOptions> mcpServers = new ArrayList<>();
  private ConversationOptions conversation = new ConversationOptions();
  private DispatcherOptions dispatcher = new DispatcherOptions();
  private int conversationInstances = DEFAULT_CONVERSATION_INSTANCES;
  private StoreOptions store = new StoreOptions().setType(StoreOptions.Type.MEMORY);
  private boolean conversations = true;
  private Tenants tenants = Tenants.none();

  public AgentbusOptions() {
  }

  public AgentbusOptions(AgentbusOptions other) {
    this.mcpServers = new ArrayList<>(other.mcpServers);
    this.conversation = new ConversationOptions(other.conversation);
    this.dispatcher = new DispatcherOptions(other.dispatcher);
    this.conversationInstances = other.conversationInstances;
    this.store = new StoreOptions(other.store);
    this.conversations = other.conversations;
    this.tenants = other.tenants;
  }

  /**
   * @return whether the conversation verticles (and the dispatcher) run here; a cluster node
   *     without the {@code conversation} role runs only MCP servers, the catalog and the API
   */
  public boolean isConversations() {
    return conversations;
  }

  public AgentbusOptions setConversations(boolean conversations) {
    this.conversations = conversations;
    return this;
  }

  /** @return the MCP servers (disabled ones are skipped at deploy) */
  public List<McpServerOptions> getMcpServers() {
    return mcpServers;
  }

  public AgentbusOptions setMcpServers(List<McpServerOptions> mcpServers) {
    this.mcpServers = new ArrayList<>(Objects.requireNonNull(mcpServers, "'mcpServers' cannot be null"));
    return this;
  }

  public AgentbusOptions addMcpServer(McpServerOptions server) {
    mcpServers.add(Objects.requireNonNull(server, "'server' cannot be null"));
    return this;
  }

  /** @return each tenant's values for the connections of scoped MCP servers ({@code ${tenant.secret.NAME}}) */
  public Tenants getTenants() {
    return tenants;
  }

  public AgentbusOptions setTenants(Tenants tenants) {
    this.tenants = Objects.requireNonNull(tenants, "'tenants' cannot be null");
    return this;
  }

  /** @return model, loop and history settings of the conversation service */
  public ConversationOptions getConversation() {
    return conversation;
  }

  public AgentbusOptions setConversation(ConversationOptions conversation) {
    this.conversation = Objects.requireNonNull(conversation, "'conversation' cannot be null");
    return this;
  }

  public DispatcherOptions getDispatcher() {
    return dispatcher;
  }

  public AgentbusOptions setDispatcher(DispatcherOptions dispatcher) {
    this.dispatcher = Objects.requireNonNull(dispatcher, "'dispatcher' cannot be null");
    return this;
  }

  /** @return how many conversation verticle instances (shards) to deploy */
  public int getConversationInstances() {
    return conversationInstances;
  }

  public AgentbusOptions setConversationInstances(int conversationInstances) {
    if (conversationInstances < 1) {
      throw new IllegalArgumentException("conversationInstances must be >= 1");
    }
    this.conversationInstances = conversationInstances;
    return this;
  }

  /** @return the conversation store {@link Agentbus#deploy} opens (and {@link Agentbus#close} closes) */
  public StoreOptions getStore() {
    return store;
  }

  public AgentbusOptions setStore(StoreOptions store) {
    this.store = Objects.requireNonNull(store, "'store' cannot be null");
    return this;
  }
}
