package io.agentbus;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.CatalogVerticle;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.conversation.ConversationIds;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.conversation.ConversationVerticle;
import io.agentbus.dispatch.DispatcherVerticle;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.auth.OAuthManager;
import io.agentbus.mcp.auth.TokenStores;
import io.agentbus.mcp.server.McpServerVerticle;
import io.agentbus.store.ConversationStore;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.LocalMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Agentbus embedded in an application that already runs Vert.x: {@link #deploy} (or
 * {@link #start}) starts one verticle per MCP server, the tool catalog, the dispatcher and
 * the conversation verticles, all talking over the event bus (see the README's event-bus
 * contract). The methods below are thin wrappers over that contract.
 *
 * <p>An MCP server that is not READY holds up nothing but itself: its verticle keeps retrying
 * it (restart with backoff), calls to it wait for READY within their deadline, and its tools
 * join the catalog once it lists them. {@link #deploy} only waits for each server's first
 * connection attempt, {@link #start} not even that.
 *
 * <p>The OAuth tokens of HTTP MCP servers are kept in the conversation store
 * ({@link TokenStores#fromEnvironment(Vertx, ConversationStore)}) unless
 * {@link OAuthManager#install} set up a store of its own first.
 */
public final class Agentbus {

  /**
   * Send timeout of {@link #send}: a whole turn (model calls and tools); the same as
   * {@link ConversationOptions#SEND_TIMEOUT_MS}.
   */
  public static final long TURN_TIMEOUT_MS = ConversationOptions.SEND_TIMEOUT_MS;

  private final Vertx vertx;
  private final List<String> deployments;
  private final String conversationDeployment;
  private final List<String> servers;
  private final ConversationStore store;
  private final List<McpServerVerticle> serverVerticles;

  private Agentbus(Vertx vertx, List<String> deployments, String conversationDeployment, List<String> servers,
                   List<McpServerVerticle> serverVerticles, ConversationStore store) {
    this.vertx = vertx;
    this.deployments = deployments;
    this.conversationDeployment = conversationDeployment;
    this.servers = servers;
    this.serverVerticles = serverVerticles;
    this.store = store;
  }

  /**
   * Deploys everything; completes once every MCP server made its first connection attempt
   * (a server that failed keeps being restarted in the background) and the services listen.
   * A server that hangs while starting holds this up for its {@code connectTimeoutMs}: use
   * {@link #start} to be serving at once.
   */
  public static Future<Agentbus> deploy(Vertx vertx, AgentbusOptions options) {
    return deploy(vertx, options, true);
  }

  /**
   * Deploys everything; completes as soon as the services listen, without waiting for any MCP
   * server: each connects in the background ({@code STARTING} in its status until its first
   * attempt ends), and its tools join the catalog once it is READY. Conversations work at once,
   * with the tools of the servers that are READY; {@link #serversStarted()} and
   * {@link #serversReady()} tell when the servers got that far.
   */
  public static Future<Agentbus> start(Vertx vertx, AgentbusOptions options) {
    return deploy(vertx, options, false);
  }

  private static Future<Agentbus> deploy(Vertx vertx, AgentbusOptions options, boolean awaitServers) {
    Objects.requireNonNull(options, "'options' cannot be null");
    AgentbusOptions o = new AgentbusOptions(options);
    // Only touched along the sequential chain below (each step after the previous one).
    List<String> deployments = new ArrayList<>();
    ConversationStore[] store = new ConversationStore[1];
    String[] conversationDeployment = new String[1];
    List<McpServerOptions> enabled = o.getMcpServers().stream().filter(s -> !s.isDisabled()).toList();
    List<String> names = enabled.stream().map(McpServerOptions::getName).toList();
    List<McpServerVerticle> verticles = new ArrayList<>();
    List<Future<String>> mcp = new ArrayList<>();
    ToolCatalog catalog = ToolCatalog.shared(vertx);
    // every node decodes the shared codec: a clustered node receives replies sent with it
    SharedJsonCodec.register(vertx);
    // the store first: a database that is down stops everything before any MCP server starts
    return ConversationStore.create(vertx, o.getStore())
      .compose(st -> {
        store[0] = st;
        // before any server connects: OAuth tokens live in this store (unless the embedder installed its own)
        OAuthManager.installDefault(vertx, TokenStores.fromEnvironment(vertx, st));
        for (McpServerOptions server : enabled) {
          McpServerVerticle verticle = McpServerVerticle.connectingInBackground().setTenants(o.getTenants());
          verticles.add(verticle);
          mcp.add(vertx.deployVerticle(verticle, new DeploymentOptions().setConfig(server.toJson())));
        }
        return Future.join(mcp);
      })
      .transform(ar -> {
        mcp.stream().filter(Future::succeeded).forEach(f -> deployments.add(f.result()));
        return ar.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause());
      })
      // With awaitServers the catalog starts after the first attempts, so it lists the tools of
      // the servers that are READY by then; otherwise they join with their tools-changed event.
      .compose(v -> awaitServers ? firstAttempts(verticles) : Future.<Void>succeededFuture())
      .compose(v -> vertx.deployVerticle(new CatalogVerticle(catalog, names)).map(deployments::add))
      .compose(v -> !o.isConversations() ? Future.succeededFuture()
        : vertx.deployVerticle(new DispatcherVerticle(catalog, o.getDispatcher())).map(deployments::add))
      .compose(v -> !o.isConversations() ? Future.succeededFuture()
        : vertx.deployVerticle(() -> new ConversationVerticle(store[0]), new DeploymentOptions()
          .setInstances(o.getConversationInstances())
          .setConfig(o.getConversation().toJson().put("dispatcher", o.getDispatcher().toJson())))
          .map(id -> conversationDeployment[0] = id).map(deployments::add))
      .map(v -> new Agentbus(vertx, List.copyOf(deployments), conversationDeployment[0], names, List.copyOf(verticles),
        store[0]))
      .recover(err -> undeployAll(vertx, deployments)
        .eventually(() -> store[0] == null ? Future.succeededFuture() : store[0].close())
        .transform(ar -> Future.failedFuture(err)));
  }

  private static Future<Void> firstAttempts(List<McpServerVerticle> verticles) {
    return Future.join(verticles.stream().map(McpServerVerticle::firstAttempt).toList()).mapEmpty();
  }

  private static Future<Void> undeployAll(Vertx vertx, List<String> ids) {
    Future<Void> chain = Future.succeededFuture();
    for (int i = ids.size() - 1; i >= 0; i--) {
      String id = ids.get(i);
      chain = chain.eventually(() -> vertx.undeploy(id));
    }
    return chain;
  }

  /** @return the names of the deployed MCP servers */
  public List<String> servers() {
    return servers;
  }

  /**
   * Completes once every MCP server has made its first connection attempt, whether it
   * succeeded or not (at once after {@link #deploy}). Callbacks run on the caller's context.
   */
  public Future<Void> serversStarted() {
    return onCallerContext(firstAttempts(serverVerticles));
  }

  /**
   * Completes once every MCP server has been READY at least once; fails if one was stopped
   * before ({@link #close}). It may never complete (a server that never answers keeps being
   * retried): bound it with {@link Future#timeout}. Callbacks run on the caller's context.
   */
  public Future<Void> serversReady() {
    return onCallerContext(Future.all(serverVerticles.stream().map(McpServerVerticle::firstReady).toList()).mapEmpty());
  }

  private <T> Future<T> onCallerContext(Future<T> future) {
    Promise<T> p = ((ContextInternal) vertx.getOrCreateContext()).promise();
    future.onComplete(p);
    return p.future();
  }

  /** Creates a conversation: {@code {system?, tools?, roots?, tenant?}} → {@code {id}}. */
  public Future<String> createConversation(JsonObject body) {
    return request(Addresses.CONVERSATION, Actions.CREATE, body == null ? new JsonObject() : body, 30_000)
      .map(reply -> reply.getString("id"));
  }

  /** Runs one turn; completes with the turn result (answer, status, tool calls, usage). */
  public Future<JsonObject> send(String conversationId, Object content) {
    return conversation(conversationId, Actions.SEND, new JsonObject().put("id", conversationId).put("content", content),
      TURN_TIMEOUT_MS);
  }

  /**
   * Answers an elicitation of the conversation (an {@code input_required} event on
   * {@code agentbus.conversation.<id>.events}): {@code answer} is {@code {action: accept|decline|cancel,
   * content?}}; completes with {@code {elicitationId, action, content?}} (the defaults applied), fails
   * with 400 naming the violations (the elicitation stays open) or 404 when it is not open.
   */
  public Future<JsonObject> answerElicitation(String conversationId, String elicitationId, JsonObject answer) {
    JsonObject body = (answer == null ? new JsonObject() : answer.copy()).put("id", conversationId).put("elicitationId", elicitationId);
    return request(Addresses.CONVERSATION, Actions.ANSWER, body, 30_000);
  }

  /** @return the conversation's history and usage */
  public Future<JsonObject> get(String conversationId) {
    return conversation(conversationId, Actions.GET, new JsonObject().put("id", conversationId), 30_000);
  }

  /** Deletes a conversation, from the store too. */
  public Future<Void> delete(String conversationId) {
    return conversation(conversationId, Actions.DELETE, new JsonObject().put("id", conversationId), 30_000).mapEmpty();
  }

  /**
   * Asks the instance the id names; when it has no such instance (the conversation was created
   * by a process with more instances, and loaded from the store), the front address answers.
   */
  private Future<JsonObject> conversation(String id, String action, JsonObject body, long timeoutMs) {
    return request(ConversationIds.address(id), action, body, timeoutMs).recover(err -> {
      if (err instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
        return request(Addresses.CONVERSATION, action, body, timeoutMs);
      }
      return Future.failedFuture(err);
    });
  }

  private Future<JsonObject> request(String address, String action, JsonObject body, long timeoutMs) {
    return vertx.eventBus().<JsonObject>request(address, body,
      new DeliveryOptions().addHeader(Actions.HEADER, action).setSendTimeout(timeoutMs)).map(Message::body);
  }

  /**
   * Graceful stop, first half: new turns are refused from now on, and the future completes
   * once the running turns have finished or {@code timeoutMs} has passed.
   */
  public Future<Void> drain(long timeoutMs) {
    String conversations = conversationDeployment;
    if (conversations == null) {
      return Future.succeededFuture();
    }
    LocalMap<String, String> shards = vertx.sharedData().getLocalMap(ConversationVerticle.SHARDS);
    List<Future<JsonObject>> replies = new ArrayList<>();
    for (String shard : shards.keySet()) {
      if (conversations.equals(shards.get(shard))) {
        replies.add(request(Addresses.conversationShard(Integer.parseInt(shard)), Actions.DRAIN, new JsonObject(), timeoutMs));
      }
    }
    return Future.join(replies).<Void>mapEmpty().otherwiseEmpty();
  }

  /** @return the conversation store, for reading what the conversations committed */
  public ConversationStore store() {
    return store;
  }

  /**
   * Undeploys everything, MCP servers last (their children are shut down cleanly), then closes
   * the conversation store.
   */
  public Future<Void> close() {
    return undeployAll(vertx, deployments).eventually(store::close);
  }
}
