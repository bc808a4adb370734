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
  /**
   * MCP server with {@code oauth}: body {@code {tenant?, redirectUri?}}; reply
   * {@code {server, tenant, url}}, the authorization URL a person opens (it carries a state:
   * never log it). A {@code shared} server is authorized without a tenant only.
   */
  public static final String OAUTH_AUTHORIZE = "oauth/authorize";
  /**
   * MCP server with {@code oauth}: body the callback's query {@code {code?, state, iss?, error?,
   * error_description?}}; reply {@code {server, tenant}} once the tokens are stored.
   */
  public static final String OAUTH_CALLBACK = "oauth/callback";

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
   * Conversation instance running a turn: a server asks the conversation's user for input during
   * a tool call ({@code {conversationId, tenant?, server, toolUseId?, message, requestedSchema,
   * timeoutMs, eventsAddress?, eventFields?}}); reply the MCP {@code ElicitResult}.
   */
  public static final String ELICIT = "elicit";
  /**
   * Conversation instance running a turn: a server asks for a model completion during a tool call
   * ({@code {conversationId, tenant?, server, params, maxTokens, maxCallsPerTurn, timeoutMs}});
   * reply the MCP {@code CreateMessageResult}.
   */
  public static final String SAMPLE = "sample";
  /**
   * Conversation: the user's answer to an open elicitation ({@code {id, elicitationId, tenant?,
   * action: accept|decline|cancel, content?}}); reply {@code {elicitationId, action, content?}}.
   */
  public static final String ANSWER = "answer";
  /**
   * Conversation: the open elicitations of a conversation ({@code {id, tenant?}}); reply
   * {@code {elicitations: [input_required events]}}.
   */
  public static final String ELICITATIONS = "elicitations";
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
