package io.agentbus.bus;

/**
 * Every event-bus address Agentbus uses. Requests carry a {@link Actions} name in the
 * {@code action} header and a JSON body; failures are {@code ReplyException}s with a
 * {@link FailureCodes} code. Addresses are stable so a clustered bus can carry them.
 */
public final class Addresses {

  /** Prefix of the per-MCP-server request address: {@code agentbus.mcp.<server>}. */
  public static final String MCP_PREFIX = "agentbus.mcp.";
  /** Published by every MCP server verticle on a tool-list change: {@code {server, tools}}. */
  public static final String MCP_TOOLS_CHANGED_ALL = "agentbus.events.mcp.tools-changed";
  /** Published by every MCP server verticle on a status change (see {@code ServerStatus}). */
  public static final String MCP_STATUS_ALL = "agentbus.events.mcp.status";
  /** The dispatcher: one assistant turn's tool_use blocks in, one user message out. */
  public static final String DISPATCH = "agentbus.dispatch";
  /** The tool catalog: action {@code get} returns the current (or a recent) snapshot. */
  public static final String CATALOG = "agentbus.catalog";
  /** Published by the catalog after each rebuild: {@code {version, tools: [model-side names]}}. */
  public static final String CATALOG_CHANGED = "agentbus.events.catalog.changed";
  /**
   * Published by a catalog that starts: every MCP server verticle, on whichever node, publishes
   * its status (and its tools, when READY) again, so the new catalog sees the whole cluster.
   */
  public static final String CATALOG_SYNC = "agentbus.events.catalog.sync";
  /** The conversation service: actions create, send, get, delete. */
  public static final String CONVERSATION = "agentbus.conversation";
  /**
   * Published (cluster-wide) once a conversation was deleted: {@code {id, tenant?}}. A server
   * with {@code scope: conversation} closes that conversation's connection on it.
   */
  public static final String CONVERSATION_DELETED = CONVERSATION + ".deleted";

  private Addresses() {
  }

  /** @return the request address of one MCP server: actions tools/list, tools/call, status */
  public static String mcp(String server) {
    return MCP_PREFIX + server;
  }

  /** @return where one server's tool-list changes are published */
  public static String mcpToolsChanged(String server) {
    return MCP_PREFIX + server + ".tools-changed";
  }

  /** @return where one server's status changes are published */
  public static String mcpStatus(String server) {
    return MCP_PREFIX + server + ".status";
  }

  /** @return the address of one conversation verticle instance (conversation ids name it) */
  public static String conversationShard(int shard) {
    return CONVERSATION + ".shard." + shard;
  }

  /**
   * @return the address of one cluster node's conversation instances, which a node without
   *     conversations of its own uses to know where its request runs
   */
  public static String conversationNode(String nodeId) {
    return CONVERSATION + ".node." + nodeId;
  }

  /**
   * @return where the turn of one conversation that waits for approvals answers them (registered
   *     cluster-wide by that turn while it runs, once a call of it needed approval)
   */
  public static String conversationApprovals(String conversationId) {
    return CONVERSATION + "." + conversationId + ".approvals";
  }

  /** @return where one conversation's turn events are published */
  public static String conversationEvents(String conversationId) {
    return CONVERSATION + "." + conversationId + ".events";
  }

  /**
   * @return the cluster-wide address of one conversation instance of one node, where the
   *     servers' requests during its turns' tool calls are sent
   */
  public static String conversationInstance(String nodeId, int shard) {
    return CONVERSATION + ".node." + nodeId + ".shard." + shard;
  }

  /** @return the address of one open elicitation (its answer is sent there) */
  public static String elicitation(String elicitationId) {
    return CONVERSATION + ".elicitation." + elicitationId;
  }

  /** @return where one conversation's open elicitations are listed (while it has any) */
  public static String conversationElicitations(String conversationId) {
    return CONVERSATION + "." + conversationId + ".elicitations";
  }
}
