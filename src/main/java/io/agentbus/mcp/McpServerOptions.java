package io.agentbus.mcp;

import io.agentbus.limits.MemoryBudget;
import io.agentbus.mcp.auth.OAuthOptions;
import io.agentbus.options.ConfigException;
import io.agentbus.options.EnvExpander;
import io.agentbus.options.JsonFields;
import io.agentbus.options.TenantPlaceholders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How to reach and run one MCP server: one entry of the {@code mcpServers} object in
 * {@code conf/mcp.json} (the Claude Desktop / Cursor / VS Code format), plus Agentbus'
 * optional tuning fields. The JSON form read by {@link #McpServerOptions(JsonObject)} and
 * written by {@link #toJson()} is that same entry shape with a {@code name} added.
 */
public class McpServerOptions {

  /** How the server is reached. */
  public enum Transport {
    /** A child process speaking newline-delimited JSON-RPC on stdin/stdout. */
    STDIO,
    /** Streamable HTTP only. */
    HTTP,
    /** Legacy HTTP+SSE (2024-11-05) only. */
    SSE,
    /** Streamable HTTP, falling back to legacy HTTP+SSE (a plain {@code url}). */
    AUTO_HTTP
  }

  /** Which callers share one connection to the server ({@code "scope"} in mcp.json). */
  public enum Scope {
    /** One connection for every caller (the default). */
    SHARED,
    /** One connection per tenant, opened on the tenant's first call. */
    TENANT,
    /** One connection per conversation (of a tenant), opened on its first call. */
    CONVERSATION
  }

  public static final long DEFAULT_TIMEOUT_MS = 60_000;
  public static final long DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
  public static final long DEFAULT_MAX_TOTAL_TIMEOUT_MS = 600_000;
  public static final int DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
  /**
   * Tool calls running at once per server. High: the limit only protects a server from an
   * unbounded burst (stdio servers pipeline requests, HTTP servers get a connection per call);
   * the call's own timeout is what bounds it.
   */
  public static final int DEFAULT_MAX_CONCURRENT_CALLS = 4096;
  /**
   * Requests in flight per connection beyond {@code maxConcurrentCalls} (list, ping, calls of
   * the {@code call} command): the default {@code maxPendingRequests} is
   * {@code maxConcurrentCalls} plus this.
   */
  public static final int PENDING_REQUESTS_HEADROOM = 4096;
  /** Default requests in flight per connection, with the default {@code maxConcurrentCalls}. */
  public static final int DEFAULT_MAX_PENDING_REQUESTS = DEFAULT_MAX_CONCURRENT_CALLS + PENDING_REQUESTS_HEADROOM;
  /**
   * Tool calls that may wait for a slot per server, bounded by memory:
   * {@link MemoryBudget#queuedCalls()} (half of the maximum heap at 4 KiB per call, at least
   * 10,000). Queued calls wait within their own timeout.
   */
  public static final int DEFAULT_MAX_QUEUED_CALLS = MemoryBudget.queuedCalls();
  public static final long DEFAULT_SHUTDOWN_GRACE_MS = 2_000;
  public static final long DEFAULT_TERMINATE_GRACE_MS = 2_000;
  public static final long DEFAULT_RESTART_INITIAL_BACKOFF_MS = 500;
  public static final long DEFAULT_RESTART_MAX_BACKOFF_MS = 30_000;
  public static final int DEFAULT_DOWN_AFTER_FAILURES = 5;
  public static final Scope DEFAULT_SCOPE = Scope.SHARED;
  /** A scoped connection without a call for this long closes. */
  public static final long DEFAULT_IDLE_TIMEOUT_MS = 300_000;
  /** Scoped connections open at once per server. */
  public static final int DEFAULT_MAX_CONNECTIONS = 100;

  /** Server names become event-bus address segments and tool-name prefixes. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private String name;
  private Transport transport = Transport.STDIO;
  private String command;
  private List<String> args = new ArrayList<>();
  private Map<String, String> env = new LinkedHashMap<>();
  private String cwd;
  private String url;
  private Map<String, String> headers = new LinkedHashMap<>();
  private OAuthOptions oauth;
  private boolean disabled;
  private List<String> allowedTools = new ArrayList<>();
  private List<String> disabledTools = new ArrayList<>();
  /** {@code null}: the global default ({@code approvals.default} in agent.json). */
  private ToolApproval approval;
  private Map<String, ToolApproval> toolApprovals = new LinkedHashMap<>();
  private long timeoutMs = DEFAULT_TIMEOUT_MS;
  private long connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private long maxTotalTimeoutMs = DEFAULT_MAX_TOTAL_TIMEOUT_MS;
  private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
  /** {@code null}: {@code maxConcurrentCalls + PENDING_REQUESTS_HEADROOM}. */
  private Integer maxPendingRequests;
  private int maxConcurrentCalls = DEFAULT_MAX_CONCURRENT_CALLS;
  private int maxQueuedCalls = DEFAULT_MAX_QUEUED_CALLS;
  private long shutdownGraceMs = DEFAULT_SHUTDOWN_GRACE_MS;
  private long terminateGraceMs = DEFAULT_TERMINATE_GRACE_MS;
  private long restartInitialBackoffMs = DEFAULT_RESTART_INITIAL_BACKOFF_MS;
  private JsonArray roots;
  private SamplingOptions sampling = SamplingOptions.DISABLED;
  private long restartMaxBackoffMs = DEFAULT_RESTART_MAX_BACKOFF_MS;
  private int downAfterFailures = DEFAULT_DOWN_AFTER_FAILURES;
  private Scope scope = DEFAULT_SCOPE;
  private long idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS;
  private int maxConnections = DEFAULT_MAX_CONNECTIONS;
  /** What the JSON constructor did not read: warned about by {@code io.agentbus.config.McpConfig}, not copied. */
  private List<String> unknownFields = List.of();

  public McpServerOptions() {
  }

  public McpServerOptions(McpServerOptions other) {
    this(other.toJson());
  }

  /**
   * Reads the entry shape (already expanded, names as in {@link #toJson()}). Every field is
   * checked against the range of its setter.
   *
   * @throws ConfigException naming the server, the field and the allowed values
   */
  public McpServerOptions(JsonObject json) {
    String owner = "server '" + (json.getValue("name") instanceof String n ? n : "?") + "'";
    JsonFields f = new JsonFields(json, owner);
    name = f.string("name");
    command = f.string("command");
    url = f.string("url");
    transport = transportOf(f.string("type"), command, url, owner);
    args = orElse(f.stringList("args"), new ArrayList<>());
    env = orElse(f.stringMap("env"), new LinkedHashMap<>());
    cwd = f.string("cwd");
    headers = orElse(f.stringMap("headers"), new LinkedHashMap<>());
    oauth = f.has("oauth") ? new OAuthOptions(f.object("oauth")) : null;
    disabled = orElse(f.bool("disabled"), false);
    allowedTools = orElse(f.stringList("allowedTools"), new ArrayList<>());
    disabledTools = orElse(f.stringList("disabledTools"), new ArrayList<>());
    approval = approvalOf(f, "approval", f.string("approval"));
    Map<String, String> perTool = orElse(f.stringMap("toolApprovals"), Map.of());
    toolApprovals = new LinkedHashMap<>();
    perTool.forEach((tool, word) -> toolApprovals.put(tool, approvalOf(f, "toolApprovals." + tool, word)));
    timeoutMs = orElse(f.longField("timeoutMs", 1), DEFAULT_TIMEOUT_MS);
    connectTimeoutMs = orElse(f.longField("connectTimeoutMs", 1), DEFAULT_CONNECT_TIMEOUT_MS);
    maxTotalTimeoutMs = orElse(f.longField("maxTotalTimeoutMs", 1), DEFAULT_MAX_TOTAL_TIMEOUT_MS);
    maxMessageBytes = orElse(f.intField("maxMessageBytes", 1), DEFAULT_MAX_MESSAGE_BYTES);
    maxConcurrentCalls = orElse(f.intField("maxConcurrentCalls", 1), DEFAULT_MAX_CONCURRENT_CALLS);
    Integer pending = f.intField("maxPendingRequests", 1);
    if (pending != null && pending < maxConcurrentCalls) {
      throw new ConfigException(owner + ": field 'maxPendingRequests' (" + pending + ") must not be lower than"
        + " 'maxConcurrentCalls' (" + maxConcurrentCalls + ")");
    }
    maxPendingRequests = pending;
    maxQueuedCalls = orElse(f.intField("maxQueuedCalls", 1), DEFAULT_MAX_QUEUED_CALLS);
    shutdownGraceMs = orElse(f.longField("shutdownGraceMs", 1), DEFAULT_SHUTDOWN_GRACE_MS);
    terminateGraceMs = orElse(f.longField("terminateGraceMs", 1), DEFAULT_TERMINATE_GRACE_MS);
    JsonFields r = f.object("restart");
    restartInitialBackoffMs = orElse(r.longField("initialBackoffMs", 1), DEFAULT_RESTART_INITIAL_BACKOFF_MS);
    restartMaxBackoffMs = orElse(r.longField("maxBackoffMs", 1), DEFAULT_RESTART_MAX_BACKOFF_MS);
    downAfterFailures = orElse(r.intField("downAfterFailures", 1), DEFAULT_DOWN_AFTER_FAILURES);
    scope = scopeOf(f.string("scope"), owner);
    idleTimeoutMs = orElse(f.longField("idleTimeoutMs", 1), DEFAULT_IDLE_TIMEOUT_MS);
    maxConnections = orElse(f.intField("maxConnections", 1), DEFAULT_MAX_CONNECTIONS);
    try {
      roots = McpRoots.check(f.raw("roots"), owner + ": field 'roots'");
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    JsonFields sf = f.object("sampling");
    try {
      sampling = new SamplingOptions(orElse(sf.bool("enabled"), false),
        orElse(sf.intField("maxTokens", 1), SamplingOptions.DEFAULT_MAX_TOKENS),
        orElse(sf.intField("maxCallsPerTurn", 1), SamplingOptions.DEFAULT_MAX_CALLS_PER_TURN), orElse(sf.string("approval"), "never"));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(owner + ": " + e.getMessage());
    }
    unknownFields = f.unknownFields();
  }

  /** @return the entry's keys that no field reads (each with a typo hint when one is close) */
  public List<String> unknownFields() {
    return unknownFields;
  }

  /**
   * Reads one {@code mcpServers} entry: checks every known field's type, expands
   * {@code ${VAR}} references and checks that the entry names a command or a url. Errors
   * name the server and the field.
   */
  public static McpServerOptions fromJson(String name, Object entry, EnvExpander expander) {
    Objects.requireNonNull(name, "'name' cannot be null");
    String owner = "server '" + name + "'";
    if (!NAME.matcher(name).matches()) {
      throw new ConfigException(owner + ": the name must be 1-64 characters of [A-Za-z0-9_-]");
    }
    if (!(entry instanceof JsonObject json)) {
      throw new ConfigException(owner + ": the entry must be an object");
    }
    JsonObject copy = json.copy().put("name", name);
    McpServerOptions options = new McpServerOptions(copy);
    if (options.disabled) {
      return options;
    }
    options.command = expander.expand(options.command, owner + ": command");
    options.url = expander.expand(options.url, owner + ": url");
    options.cwd = expander.expand(options.cwd, owner + ": cwd");
    List<String> args = new ArrayList<>();
    for (int i = 0; i < options.args.size(); i++) {
      args.add(expander.expand(options.args.get(i), owner + ": args[" + i + "]"));
    }
    options.args = args;
    options.env.replaceAll((k, v) -> expander.expand(v, owner + ": env." + k));
    options.headers.replaceAll((k, v) -> expander.expand(v, owner + ": headers." + k));
    options.checkTenantPlaceholders();
    options.oauth = options.oauth == null ? null : options.oauth.expand(expander, owner);
    if (options.transport == Transport.STDIO) {
      if (options.command == null || options.command.isBlank()) {
        throw new ConfigException(owner + ": field 'command' is required for a stdio server (or give a 'url')");
      }
    } else if (options.url == null || !(options.url.startsWith("http://") || options.url.startsWith("https://"))) {
      throw new ConfigException(owner + ": field 'url' must be an http:// or https:// URL");
    }
    return options;
  }

  /**
   * Checks the {@code ${tenant.*}} placeholders: known ones, only in {@code env} and
   * {@code headers}, and only in a scoped server (a shared connection has no one tenant).
   *
   * @throws ConfigException naming the server and the field
   */
  public void checkTenantPlaceholders() {
    String owner = "server '" + name + "'";
    List<String> elsewhere = new ArrayList<>();
    elsewhere.add(command);
    elsewhere.add(url);
    elsewhere.add(cwd);
    elsewhere.addAll(args);
    for (String v : elsewhere) {
      if (TenantPlaceholders.mentions(v)) {
        throw new ConfigException(owner + ": ${tenant.*} placeholders are allowed only in 'env' and 'headers'"
          + " (found in command, args, cwd or url)");
      }
    }
    for (Map.Entry<String, String> e : env.entrySet()) {
      checkTenantPlaceholder(owner, "env." + e.getKey(), e.getValue());
    }
    for (Map.Entry<String, String> e : headers.entrySet()) {
      checkTenantPlaceholder(owner, "headers." + e.getKey(), e.getValue());
    }
  }

  /**
   * @return a copy whose {@code ${tenant.*}} placeholders are all the empty string: the values
   *     of a connection that runs as no tenant (a scoped server's listing connection, the
   *     {@code tools} and {@code call} commands); this instance itself when it has none
   */
  public McpServerOptions withoutTenantValues() {
    boolean any = env.values().stream().anyMatch(TenantPlaceholders::mentions)
      || headers.values().stream().anyMatch(TenantPlaceholders::mentions);
    if (!any) {
      return this;
    }
    McpServerOptions copy = new McpServerOptions(this);
    copy.env.replaceAll((k, v) -> TenantPlaceholders.blank(v));
    copy.headers.replaceAll((k, v) -> TenantPlaceholders.blank(v));
    return copy;
  }

  private void checkTenantPlaceholder(String owner, String field, String value) {
    TenantPlaceholders.check(value, owner + ": field '" + field + "'");
    if (scope == Scope.SHARED && TenantPlaceholders.mentions(value)) {
      throw new ConfigException(owner + ": field '" + field + "' uses a ${tenant.*} placeholder, but the server's"
        + " scope is 'shared' (one connection for every tenant): set \"scope\": \"tenant\" or \"conversation\"");
    }
  }

  private static Scope scopeOf(String scope, String owner) {
    if (scope == null) {
      return DEFAULT_SCOPE;
    }
    return switch (scope) {
      case "shared" -> Scope.SHARED;
      case "tenant" -> Scope.TENANT;
      case "conversation" -> Scope.CONVERSATION;
      default -> throw new ConfigException(owner + ": field 'scope' must be one of shared, tenant, conversation");
    };
  }

  private static Transport transportOf(String type, String command, String url, String owner) {
    if (type == null) {
      return command == null && url != null ? Transport.AUTO_HTTP : Transport.STDIO;
    }
    switch (type) {
      case "stdio":
        return Transport.STDIO;
      case "http":
      case "streamableHttp":
      case "streamable-http":
        return Transport.HTTP;
      case "sse":
        return Transport.SSE;
      case "auto":
        return Transport.AUTO_HTTP;
      default:
        throw new ConfigException(owner + ": field 'type' must be one of stdio, http, sse");
    }
  }

  private static ToolApproval approvalOf(JsonFields f, String field, String word) {
    if (word == null) {
      return null;
    }
    ToolApproval a = ToolApproval.find(word);
    if (a == null) {
      throw f.error(field, "must be " + ToolApproval.CHOICES + " (was \"" + word + "\")");
    }
    return a;
  }

  private static <T> T orElse(T value, T fallback) {
    return value != null ? value : fallback;
  }

  /** @return the entry shape, with {@code name}; holds env and header values, so never log it */
  public JsonObject toJson() {
    JsonObject restart = new JsonObject()
      .put("initialBackoffMs", restartInitialBackoffMs)
      .put("maxBackoffMs", restartMaxBackoffMs)
      .put("downAfterFailures", downAfterFailures);
    JsonObject json = new JsonObject()
      .put("name", name)
      .put("type", switch (transport) {
        case STDIO -> "stdio";
        case HTTP -> "http";
        case SSE -> "sse";
        case AUTO_HTTP -> "auto";
      })
      .put("args", new JsonArray(new ArrayList<>(args)))
      .put("env", new JsonObject(new LinkedHashMap<>(env)))
      .put("headers", new JsonObject(new LinkedHashMap<>(headers)))
      .put("disabled", disabled)
      .put("allowedTools", new JsonArray(new ArrayList<>(allowedTools)))
      .put("disabledTools", new JsonArray(new ArrayList<>(disabledTools)))
      .put("timeoutMs", timeoutMs)
      .put("connectTimeoutMs", connectTimeoutMs)
      .put("maxTotalTimeoutMs", maxTotalTimeoutMs)
      .put("maxMessageBytes", maxMessageBytes)
      .put("maxConcurrentCalls", maxConcurrentCalls)
      .put("maxQueuedCalls", maxQueuedCalls)
      .put("shutdownGraceMs", shutdownGraceMs)
      .put("terminateGraceMs", terminateGraceMs)
      .put("restart", restart)
      .put("scope", scope.name().toLowerCase())
      .put("idleTimeoutMs", idleTimeoutMs)
      .put("maxConnections", maxConnections)
      .put("sampling", sampling.toJson());
    if (roots != null) {
      json.put("roots", roots.copy());
    }
    if (maxPendingRequests != null) {
      json.put("maxPendingRequests", maxPendingRequests);
    }
    if (approval != null) {
      json.put("approval", approval.id());
    }
    if (!toolApprovals.isEmpty()) {
      json.put("toolApprovals", toolApprovalsJson());
    }
    if (command != null) {
      json.put("command", command);
    }
    if (cwd != null) {
      json.put("cwd", cwd);
    }
    if (url != null) {
      json.put("url", url);
    }
    if (oauth != null) {
      json.put("oauth", oauth.toJson());
    }
    return json;
  }

  @Override
  public String toString() {
    return transport == Transport.STDIO ? "McpServerOptions[" + name + ": " + command + "]"
      : "McpServerOptions[" + name + ": " + UrlRedaction.redact(url) + "]";
  }

  private static int positive(long value, String field) {
    if (value < 1 || value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(field + " must be between 1 and " + Integer.MAX_VALUE);
    }
    return (int) value;
  }

  private static long positiveMs(long value, String field) {
    if (value < 1) {
      throw new IllegalArgumentException(field + " must be >= 1");
    }
    return value;
  }

  /** @return the server's approval policy, or {@code null} for the global default */
  public ToolApproval getApproval() { return approval; }

  /** Sets the server's approval policy ({@code null}: the global default). */
  public McpServerOptions setApproval(ToolApproval approval) {
    this.approval = approval;
    return this;
  }

  /** @return per-tool approval policies (MCP tool name → policy), which override the server's */
  public Map<String, ToolApproval> getToolApprovals() { return toolApprovals; }

  /** Sets the per-tool approval policies. */
  public McpServerOptions setToolApprovals(Map<String, ToolApproval> toolApprovals) {
    this.toolApprovals = new LinkedHashMap<>(Objects.requireNonNull(toolApprovals, "'toolApprovals' cannot be null"));
    return this;
  }

  /**
   * @return what the catalog needs to decide on approvals, {@code {approval?, tools?: {tool:
   *     policy}}}, or {@code null} when nothing is configured (the global default applies)
   */
  public JsonObject approvalJson() {
    if (approval == null && toolApprovals.isEmpty()) {
      return null;
    }
    JsonObject json = new JsonObject();
    if (approval != null) {
      json.put("approval", approval.id());
    }
    if (!toolApprovals.isEmpty()) {
      json.put("tools", toolApprovalsJson());
    }
    return json;
  }

  private JsonObject toolApprovalsJson() {
    JsonObject tools = new JsonObject();
    toolApprovals.forEach((tool, a) -> tools.put(tool, a.id()));
    return tools;
  }

  public String getName() { return name; }

  public McpServerOptions setName(String name) {
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("name must be 1-64 characters of [A-Za-z0-9_-]");
    }
    this.name = name;
    return this;
  }

  public Transport getTransport() { return transport; }

  public McpServerOptions setTransport(Transport transport) {
    this.transport = Objects.requireNonNull(transport, "'transport' cannot be null");
    return this;
  }

  public String getCommand() { return command; }

  public McpServerOptions setCommand(String command) {
    this.command = command;
    return this;
  }

  public List<String> getArgs() { return args; }

  public McpServerOptions setArgs(List<String> args) {
    this.args = new ArrayList<>(Objects.requireNonNull(args, "'args' cannot be null"));
    return this;
  }

  /** @return extra environment for a stdio child, on top of the safe inherited variables */
  public Map<String, String> getEnv() { return env; }

  public McpServerOptions setEnv(Map<String, String> env) {
    this.env = new LinkedHashMap<>(Objects.requireNonNull(env, "'env' cannot be null"));
    return this;
  }

  public String getCwd() { return cwd; }

  public McpServerOptions setCwd(String cwd) {
    this.cwd = cwd;
    return this;
  }

  public String getUrl() { return url; }

  public McpServerOptions setUrl(String url) {
    this.url = url;
    return this;
  }

  /** @return the OAuth client settings of an HTTP server ({@code "oauth"}), or {@code null} for none (holds secrets) */
  public OAuthOptions getOauth() { return oauth; }

  public McpServerOptions setOauth(OAuthOptions oauth) {
    this.oauth = oauth;
    return this;
  }

  /** @return HTTP headers sent on every request (may hold tokens: never logged) */
  public Map<String, String> getHeaders() { return headers; }

  public McpServerOptions setHeaders(Map<String, String> headers) {
    this.headers = new LinkedHashMap<>(Objects.requireNonNull(headers, "'headers' cannot be null"));
    return this;
  }

  public boolean isDisabled() { return disabled; }

  public McpServerOptions setDisabled(boolean disabled) {
    this.disabled = disabled;
    return this;
  }

  /** @return tool names or {@code *} globs to expose; empty means all */
  public List<String> getAllowedTools() { return allowedTools; }

  public McpServerOptions setAllowedTools(List<String> allowedTools) {
    this.allowedTools = new ArrayList<>(Objects.requireNonNull(allowedTools, "'allowedTools' cannot be null"));
    return this;
  }

  /** @return tool names or {@code *} globs to hide (applied after {@link #getAllowedTools()}) */
  public List<String> getDisabledTools() { return disabledTools; }

  public McpServerOptions setDisabledTools(List<String> disabledTools) {
    this.disabledTools = new ArrayList<>(Objects.requireNonNull(disabledTools, "'disabledTools' cannot be null"));
    return this;
  }

  /** @return default per-request timeout in ms */
  public long getTimeoutMs() { return timeoutMs; }

  public McpServerOptions setTimeoutMs(long timeoutMs) {
    this.timeoutMs = positiveMs(timeoutMs, "timeoutMs");
    return this;
  }

  /** @return time allowed from spawn/connect to a ready, initialized connection */
  public long getConnectTimeoutMs() { return connectTimeoutMs; }

  public McpServerOptions setConnectTimeoutMs(long connectTimeoutMs) {
    this.connectTimeoutMs = positiveMs(connectTimeoutMs, "connectTimeoutMs");
    return this;
  }

  /** @return hard maximum for one request even while progress keeps arriving */
  public long getMaxTotalTimeoutMs() { return maxTotalTimeoutMs; }

  public McpServerOptions setMaxTotalTimeoutMs(long maxTotalTimeoutMs) {
    this.maxTotalTimeoutMs = positiveMs(maxTotalTimeoutMs, "maxTotalTimeoutMs");
    return this;
  }

  /** @return the largest inbound message (stdio line, SSE event) accepted, in bytes */
  public int getMaxMessageBytes() { return maxMessageBytes; }

  public McpServerOptions setMaxMessageBytes(int maxMessageBytes) {
    this.maxMessageBytes = positive(maxMessageBytes, "maxMessageBytes");
    return this;
  }

  /**
   * @return how many requests may wait for an answer on one connection; unless set,
   *     {@code maxConcurrentCalls + PENDING_REQUESTS_HEADROOM}
   */
  public int getMaxPendingRequests() {
    return maxPendingRequests != null ? maxPendingRequests
      : (int) Math.min(Integer.MAX_VALUE, (long) maxConcurrentCalls + PENDING_REQUESTS_HEADROOM);
  }

  public McpServerOptions setMaxPendingRequests(int maxPendingRequests) {
    this.maxPendingRequests = positive(maxPendingRequests, "maxPendingRequests");
    return this;
  }

  /** @return how many tool calls the server verticle runs at once; more wait in a queue, within their timeout */
  public int getMaxConcurrentCalls() { return maxConcurrentCalls; }

  public McpServerOptions setMaxConcurrentCalls(int maxConcurrentCalls) {
    this.maxConcurrentCalls = positive(maxConcurrentCalls, "maxConcurrentCalls");
    return this;
  }

  /** @return how many tool calls may wait for a slot before calls are refused (a memory bound) */
  public int getMaxQueuedCalls() { return maxQueuedCalls; }

  public McpServerOptions setMaxQueuedCalls(int maxQueuedCalls) {
    this.maxQueuedCalls = positive(maxQueuedCalls, "maxQueuedCalls");
    return this;
  }

  /** @return time a stdio child gets to exit after its stdin is closed, before SIGTERM */
  public long getShutdownGraceMs() { return shutdownGraceMs; }

  public McpServerOptions setShutdownGraceMs(long shutdownGraceMs) {
    this.shutdownGraceMs = positiveMs(shutdownGraceMs, "shutdownGraceMs");
    return this;
  }

  /** @return time a stdio child gets after SIGTERM, before SIGKILL */
  public long getTerminateGraceMs() { return terminateGraceMs; }

  public McpServerOptions setTerminateGraceMs(long terminateGraceMs) {
    this.terminateGraceMs = positiveMs(terminateGraceMs, "terminateGraceMs");
    return this;
  }

  /** @return the roots offered to the server ({@code roots/list}), or {@code null} for none configured */
  public JsonArray getRoots() { return roots; }

  /** Sets the roots ({@code [{uri: "file://...", name?}]}, checked; {@code null}: none). */
  public McpServerOptions setRoots(JsonArray roots) {
    this.roots = McpRoots.check(roots, "roots");
    return this;
  }

  /** @return whether and within which limits the server may ask for model completions */
  public SamplingOptions getSampling() { return sampling; }

  public McpServerOptions setSampling(SamplingOptions sampling) {
    this.sampling = Objects.requireNonNull(sampling, "'sampling' cannot be null");
    return this;
  }

  /** @return first restart delay after a crash; doubles per consecutive failure */
  public long getRestartInitialBackoffMs() { return restartInitialBackoffMs; }

  public McpServerOptions setRestartInitialBackoffMs(long ms) {
    this.restartInitialBackoffMs = positiveMs(ms, "restart.initialBackoffMs");
    return this;
  }

  /** @return the cap on the restart delay (also the retry pace once DOWN) */
  public long getRestartMaxBackoffMs() { return restartMaxBackoffMs; }

  public McpServerOptions setRestartMaxBackoffMs(long ms) {
    this.restartMaxBackoffMs = positiveMs(ms, "restart.maxBackoffMs");
    return this;
  }

  /** @return consecutive failed starts after which the server is reported DOWN */
  public int getDownAfterFailures() { return downAfterFailures; }

  public McpServerOptions setDownAfterFailures(int downAfterFailures) {
    this.downAfterFailures = positive(downAfterFailures, "restart.downAfterFailures");
    return this;
  }

  /** @return which callers share a connection: one for all, one per tenant, one per conversation */
  public Scope getScope() { return scope; }

  public McpServerOptions setScope(Scope scope) {
    this.scope = Objects.requireNonNull(scope, "'scope' cannot be null");
    return this;
  }

  /** @return how long a scoped connection may go without a call before it closes */
  public long getIdleTimeoutMs() { return idleTimeoutMs; }

  public McpServerOptions setIdleTimeoutMs(long idleTimeoutMs) {
    this.idleTimeoutMs = positiveMs(idleTimeoutMs, "idleTimeoutMs");
    return this;
  }

  /** @return how many scoped connections may be open at once (the listing connection aside) */
  public int getMaxConnections() { return maxConnections; }

  public McpServerOptions setMaxConnections(int maxConnections) {
    this.maxConnections = positive(maxConnections, "maxConnections");
    return this;
  }
}
