package io.agentbus;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.catalog.CatalogVerticle;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.conversation.ConversationIds;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.conversation.ConversationVerticle;
import io.agentbus.dispatch.DispatcherVerticle;
import io.agentbus.mcp.McpServerOptions;
import io.agentbus.mcp.server.McpServerVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.LocalMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Agentbus embedded in an application that already runs Vert.x: {@link #deploy} starts one
 * verticle per MCP server, the tool catalog, the dispatcher and the conversation verticles,
 * all talking over the event bus (see the README's event-bus contract). The methods below
 * are thin wrappers over that contract.
 */
public final class Agentbus {

  /**
   * Send timeout of {@link #send}: a whole turn (model calls and tools); the same as
   * {@link ConversationOptions#SEND_TIMEOUT_MS}.
   */
  public static final long TURN_TIMEOUT_MS = ConversationOptions.SEND_TIMEOUT_MS;

  private final Vertx vertx;
  private final List<String> deployments;
  private final List<String> servers;

  private Agentbus(Vertx vertx, List<String> deployments, List<String> servers) {
    this.vertx = vertx;
    this.deployments = deployments;
    this.servers = servers;
  }

  /**
   * Deploys everything; completes once every MCP server made its first connection attempt
   * (a server that failed keeps being restarted in the background) and the services listen.
   */
  public static Future<Agentbus> deploy(Vertx vertx, AgentbusOptions options) {
    Objects.requireNonNull(options, "'options' cannot be null");
    AgentbusOptions o = new AgentbusOptions(options);
    // Only touched along the sequential chain below (each step after the previous one).
    List<String> deployments = new ArrayList<>();
    List<McpServerOptions> enabled = o.getMcpServers().stream().filter(s -> !s.isDisabled()).toList();
    List<String> names = enabled.stream().map(McpServerOptions::getName).toList();
    List<Future<String>> mcp = new ArrayList<>();
    for (McpServerOptions server : enabled) {
      mcp.add(vertx.deployVerticle(new McpServerVerticle(), new DeploymentOptions().setConfig(server.toJson())));
    }
    ToolCatalog catalog = ToolCatalog.shared(vertx);
    return Future.join(mcp)
      .transform(ar -> {
        mcp.stream().filter(Future::succeeded).forEach(f -> deployments.add(f.result()));
        return ar.succeeded() ? Future.<Void>succeededFuture() : Future.<Void>failedFuture(ar.cause());
      })
      .compose(v -> vertx.deployVerticle(new CatalogVerticle(catalog, names)).map(deployments::add))
      .compose(v -> vertx.deployVerticle(new DispatcherVerticle(catalog, o.getDispatcher())).map(deployments::add))
      .compose(v -> vertx.deployVerticle(ConversationVerticle.class, new DeploymentOptions()
        .setInstances(o.getConversationInstances())
        .setConfig(o.getConversation().toJson().put("dispatcher", o.getDispatcher().toJson()))).map(deployments::add))
      .map(v -> new Agentbus(vertx, List.copyOf(deployments), names))
      .recover(err -> undeployAll(vertx, deployments).transform(ar -> Future.failedFuture(err)));
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

  /** Creates a conversation: {@code {system?, tools?, tenant?}} → {@code {id}}. */
  public Future<String> createConversation(JsonObject body) {
    return request(Addresses.CONVERSATION, Actions.CREATE, body == null ? new JsonObject() : body, 30_000)
      .map(reply -> reply.getString("id"));
  }

  /** Runs one turn; completes with the turn result (answer, status, tool calls, usage). */
  public Future<JsonObject> send(String conversationId, Object content) {
    return request(ConversationIds.address(conversationId), Actions.SEND,
      new JsonObject().put("id", conversationId).put("content", content), TURN_TIMEOUT_MS);
  }

  /** @return the conversation's history and usage */
  public Future<JsonObject> get(String conversationId) {
    return request(ConversationIds.address(conversationId), Actions.GET, new JsonObject().put("id", conversationId), 30_000);
  }

  /** Forgets a conversation. */
  public Future<Void> delete(String conversationId) {
    return request(ConversationIds.address(conversationId), Actions.DELETE, new JsonObject().put("id", conversationId), 30_000)
      .mapEmpty();
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
    String conversations = deployments.get(deployments.size() - 1);
    LocalMap<String, String> shards = vertx.sharedData().getLocalMap(ConversationVerticle.SHARDS);
    List<Future<JsonObject>> replies = new ArrayList<>();
    for (String shard : shards.keySet()) {
      if (conversations.equals(shards.get(shard))) {
        replies.add(request(Addresses.conversationShard(Integer.parseInt(shard)), Actions.DRAIN, new JsonObject(), timeoutMs));
      }
    }
    return Future.join(replies).<Void>mapEmpty().otherwiseEmpty();
  }

  /** Undeploys everything, MCP servers last (their children are shut down cleanly). */
  public Future<Void> close() {
    return undeployAll(vertx, deployments);
  }
}
