package io.agentbus.conversation;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.LocalMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conversation service on {@code agentbus.conversation} (actions {@code create},
 * {@code send}, {@code get}, {@code delete}). Deploy several instances to use every core:
 * each owns a shard of the conversations (the shard is part of the id) and also listens on
 * its own address {@code agentbus.conversation.shard.<n>}; a request that reaches the
 * wrong instance is forwarded. One conversation runs one turn at a time.
 *
 * <p>Bodies: create {@code {system?, tools?: [names or globs], tenant?}} → {@code {id}};
 * send {@code {id, content, tenant?}} → the turn result; get {@code {id, tenant?}} → the
 * conversation; delete {@code {id, tenant?}} → {@code {id, deleted: true}}; drain (on a shard
 * address) refuses new turns and replies once the running ones have finished.
 */
public class ConversationVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationVerticle.class);
  /** The local map of claimed shards: shard number → deployment id. */
  public static final String SHARDS = "agentbus.conversation.shards";
  /** How long a forwarded request may take (a whole turn). */
  static final long FORWARD_TIMEOUT_MS = 30 * 60_000;

  private final Map<String, Conversation> conversations = new HashMap<>();
  private ConversationOptions options;
  private ModelClient model;
  private TurnRunner runner;
  private int shard = -1;
  private int activeTurns;
  private boolean draining;
  private final List<Message<JsonObject>> drainWaiters = new ArrayList<>();

  @Override
  public Future<?> start() {
    SharedJsonCodec.register(vertx);
    options = new ConversationOptions(config());
    model = ModelClient.create(vertx, options.getModel());
    runner = new TurnRunner(vertx, model, options, ToolCatalog.shared(vertx));
    shard = claimShard();
    if (options.getIdleTimeoutMs() > 0) {
      long every = Math.max(1_000, Math.min(60_000, options.getIdleTimeoutMs() / 4));
      vertx.setPeriodic(every, t -> forgetIdle());
    }
    var front = vertx.eventBus().<JsonObject>localConsumer(Addresses.CONVERSATION, this::onRequest);
    var own = vertx.eventBus().<JsonObject>localConsumer(Addresses.conversationShard(shard), this::onRequest);
    return Future.all(front.completion(), own.completion());
  }

  @Override
  public Future<?> stop() {
    if (shard >= 0) {
      shards().remove(String.valueOf(shard));
    }
    AgentbusMetrics.get(vertx).conversationsClosed(conversations.size());
    return model == null ? Future.succeededFuture() : model.close();
  }

  private LocalMap<String, String> shards() {
    return vertx.sharedData().getLocalMap(SHARDS);
  }

  private int claimShard() {
    LocalMap<String, String> map = shards();
    for (int k = 0; ; k++) {
      if (map.putIfAbsent(String.valueOf(k), deploymentID()) == null) {
        return k;
      }
    }
  }

  private void onRequest(Message<JsonObject> msg) {
    String action = msg.headers().get(Actions.HEADER);
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    if (Actions.DRAIN.equals(action)) {
      drain(msg);
      return;
    }
    if (draining && (Actions.CREATE.equals(action) || Actions.SEND.equals(action))) {
      msg.fail(FailureCodes.UNAVAILABLE, "Agentbus is shutting down: no new turns");
      return;
    }
    if (Actions.CREATE.equals(action)) {
      create(msg, body);
      return;
    }
    if (!Actions.SEND.equals(action) && !Actions.GET.equals(action) && !Actions.DELETE.equals(action)) {
      msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action + "' (create, send, get, delete)");
      return;
    }
    if (!(body.getValue("id") instanceof String id)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'id' must be a string");
      return;
    }
    int owner = ConversationIds.shardOf(id);
    if (owner != shard && owner >= 0 && shards().get(String.valueOf(owner)) != null) {
      forward(msg, owner);
      return;
    }
    Conversation c = conversations.get(id);
    if (c == null || !sameTenant(c, body)) {
      msg.fail(FailureCodes.NOT_FOUND, "no conversation '" + id + "'");
      return;
    }
    switch (action) {
      case Actions.SEND -> send(msg, c, body);
      case Actions.GET -> msg.reply(c.toJson());
      default -> delete(msg, c);
    }
  }

  private void forward(Message<JsonObject> msg, int owner) {
    DeliveryOptions delivery = new DeliveryOptions().setHeaders(msg.headers()).setSendTimeout(FORWARD_TIMEOUT_MS);
    vertx.eventBus().<JsonObject>request(Addresses.conversationShard(owner), msg.body(), delivery).onComplete(ar -> {
      if (ar.succeeded()) {
        msg.reply(ar.result().body());
      } else if (ar.cause() instanceof ReplyException re) {
        msg.fail(re.failureCode(), re.getMessage());
      } else {
        msg.fail(FailureCodes.INTERNAL, String.valueOf(ar.cause().getMessage()));
      }
    });
  }

  private static boolean sameTenant(Conversation c, JsonObject body) {
    Object tenant = body.getValue("tenant");
    return c.tenant() == null ? tenant == null : c.tenant().equals(tenant);
  }

  private void create(Message<JsonObject> msg, JsonObject body) {
    if (conversations.size() >= options.getMaxConversations()) {
      msg.fail(FailureCodes.UNAVAILABLE, "too many conversations (" + options.getMaxConversations() + " per instance)");
      return;
    }
    Object system = body.getValue("system");
    Object tenant = body.getValue("tenant");
    Object tools = body.getValue("tools");
    if (system != null && !(system instanceof String)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'system' must be a string");
      return;
    }
    if (tenant != null && !(tenant instanceof String)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'tenant' must be a string");
      return;
    }
    List<String> patterns = new ArrayList<>();
    if (tools != null) {
      if (!(tools instanceof JsonArray arr) || !arr.stream().allMatch(o -> o instanceof String)) {
        msg.fail(FailureCodes.BAD_REQUEST, "field 'tools' must be an array of tool names or globs");
        return;
      }
      arr.forEach(o -> patterns.add((String) o));
    }
    String id = ConversationIds.newId(shard);
    Conversation c = new Conversation(id, (String) tenant, system != null ? (String) system : options.getSystem(),
      patterns.isEmpty() ? ToolSelection.ALL : new ToolSelection(patterns));
    conversations.put(id, c);
    AgentbusMetrics.get(vertx).conversationOpened();
    msg.reply(new JsonObject().put("id", id));
  }

  private void send(Message<JsonObject> msg, Conversation c, JsonObject body) {
    String problem = UserContent.check(body.getValue("content"));
    if (problem != null) {
      msg.fail(FailureCodes.BAD_REQUEST, problem);
      return;
    }
    if (c.busy()) {
      msg.fail(FailureCodes.CONFLICT, "conversation '" + c.id() + "' is already running a turn");
      return;
    }
    if (activeTurns >= options.getMaxActiveTurns()) {
      msg.fail(FailureCodes.UNAVAILABLE, "overloaded: " + activeTurns + " turns running; retry later");
      return;
    }
    activeTurns++;
    c.turnStarted();
    runner.run(c, body.getValue("content")).onComplete(ar -> {
      activeTurns--;
      c.turnEnded();
      if (ar.succeeded()) {
        msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        Throwable err = ar.cause();
        LOG.warn("[{}] turn failed: {}", c.id(), err.getMessage());
        int code = err instanceof ModelException ? FailureCodes.UPSTREAM : FailureCodes.INTERNAL;
        msg.fail(code, err instanceof ModelException ? "model API error: " + err.getMessage() : String.valueOf(err.getMessage()));
      }
      if (draining && activeTurns == 0) {
        drainWaiters.forEach(w -> w.reply(drained()));
        drainWaiters.clear();
      }
    });
  }

  /** Refuses new turns from now on; replies once no turn runs on this instance. */
  private void drain(Message<JsonObject> msg) {
    if (!draining) {
      LOG.info("conversation shard {} draining: {} turns running", shard, activeTurns);
    }
    draining = true;
    if (activeTurns == 0) {
      msg.reply(drained());
    } else {
      drainWaiters.add(msg);
    }
  }

  private JsonObject drained() {
    return new JsonObject().put("shard", shard).put("conversations", conversations.size());
  }

  private void forgetIdle() {
    long now = System.nanoTime();
    int before = conversations.size();
    conversations.values().removeIf(c -> c.idleFor(options.getIdleTimeoutMs(), now));
    int forgotten = before - conversations.size();
    if (forgotten > 0) {
      AgentbusMetrics.get(vertx).conversationsClosed(forgotten);
      LOG.info("conversation shard {}: forgot {} conversations idle for {} ms", shard, forgotten, options.getIdleTimeoutMs());
    }
  }

  private void delete(Message<JsonObject> msg, Conversation c) {
    if (c.busy()) {
      msg.fail(FailureCodes.CONFLICT, "conversation '" + c.id() + "' is running a turn; delete it afterwards");
      return;
    }
    conversations.remove(c.id());
    AgentbusMetrics.get(vertx).conversationsClosed(1);
    msg.reply(new JsonObject().put("id", c.id()).put("deleted", true));
  }
}
