package io.agentbus.bus;

/** Values of the {@code action} header of event-bus requests. */
public final class Actions {

  /** The header that names the operation. */
  public static final String HEADER = "action";

  /** MCP server: reply {@code {server, status, tools: [raw MCP tool definitions]}}. */
  public static final String TOOLS_LIST = "tools/list";
  /**
   * MCP server: body {@code {name, arguments, timeoutMs?, progressAddress?}}; reply the
   * MCP {@code CallToolResult} ({@code isError: true} is a reply, not a failure).
   */
  public static final String TOOLS_CALL = "tools/call";
  /** MCP server: reply its status document. */
  public static final String STATUS = "status";

  /** Dispatcher: run one assistant message's tool_use blocks. */
  public static final String DISPATCH = "dispatch";

  /**
   * Catalog: body {@code {provider?: "anthropic"|"openai", version?}}; reply the snapshot
   * (Actions.GET is shared with the conversation service: same word, other address).
   */
  public static final String CATALOG_GET = "get";

  /** Conversation: create one. */
  public static final String CREATE = "create";
  /** Conversation: send a user message and run the turn. */
  public static final String SEND = "send";
  /** Conversation: history and usage. */
  public static final String GET = "get";
  /** Conversation: delete it from the store. */
  public static final String DELETE = "delete";
  /** Conversation: list the caller tenant's conversations, newest first ({@code {limit?, after?, tenant?}}). */
  public static final String LIST = "list";
  /**
   * Conversation: answer a tool call that waits for approval ({@code {id, toolUseId, approve,
   * reason?, tenant?}} → {@code {conversationId, toolUseId, approved}}).
   */
  public static final String APPROVE = "approve";
  /** Conversation: the tool calls that wait for approval ({@code {id, tenant?}} → {@code {approvals: [...]}}). */
  public static final String APPROVALS = "approvals";
  /** Conversation shard: refuse new turns, reply when the running ones are done. */
  public static final String DRAIN = "drain";

  private Actions() {
  }
}
