package io.agentbus.conversation;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.RetryLaterException;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.dispatch.DispatcherOptions;
import io.agentbus.dispatch.ToolDispatcher;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.LocalMap;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conversation service on {@code agentbus.conversation} (actions {@code create},
 * {@code send}, {@code get}, {@code delete}). Deploy several instances to use every core:
 * each also listens on its own address {@code agentbus.conversation.shard.<n>}. The
 * conversations live in a registry shared by the instances ({@link ConversationRegistry}), and
 * whichever instance a request reaches runs the turn on its own context, with its own model
 * client and an in-process {@link ToolDispatcher}: a caller on the same event loop (the HTTP
 * API, see {@link #localAddress(io.vertx.core.Vertx)}) keeps the whole turn on that loop,
 * and only the MCP calls cross to the servers' loops. One conversation runs one turn at a
 * time (the instance that runs it holds the conversation's claim).
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
  /** The local map of event-loop threads that run an instance: thread name → shard number. */
  static final String LOOPS = "agentbus.conversation.loops";

  private ConversationRegistry conversations;
  private ConversationOptions options;
  private ModelClient model;
  private TurnRunner runner;
  private int shard = -1;
  private String loop;
  private int activeTurns;
  private boolean draining;
  private final List<Message<JsonObject>> drainWaiters = new ArrayList<>();

  @Override
  public Future<?> start() {
    SharedJsonCodec.register(vertx);
    options = new ConversationOptions(config());
    conversations = ConversationRegistry.shared(vertx);
    model = ModelClient.create(vertx, options.getModel());
    ToolCatalog catalog = ToolCatalog.shared(vertx);
    DispatcherOptions dispatch = config().getValue("dispatcher") instanceof JsonObject d
      ? new DispatcherOptions(d) : new DispatcherOptions();
    runner = new TurnRunner(vertx, model, options, catalog, new ToolDispatcher(vertx, catalog, dispatch));
    shard = claimShard();
    if (context.isEventLoopContext()) {
      loop = Thread.currentThread().getName();
      vertx.sharedData().<String, Integer>getLocalMap(LOOPS).putIfAbsent(loop, shard);
    }
    if (options.getIdleTimeoutMs() > 0 && shard == 0) {
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
    if (loop != null) {
      vertx.sharedData().<String, Integer>getLocalMap(LOOPS).remove(loop, shard);
    }
    if (shards().isEmpty()) {
      AgentbusMetrics.get(vertx).conversationsClosed(conversations.size());
      conversations.clear();
    }
    return model == null ? Future.succeededFuture() : model.close();
  }

  /**
   * @return the address of the conversation instance that runs on the calling thread's event
   *     loop (any instance can serve any conversation), or {@code null} when there is none
   */
  public static String localAddress(io.vertx.core.Vertx vertx) {
    Integer local = vertx.sharedData().<String, Integer>getLocalMap(LOOPS).get(Thread.currentThread().getName());
    return local == null ? null : Addresses.conversationShard(local);
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

  private static boolean sameTenant(Conversation c, JsonObject body) {
    Object tenant = body.getValue("tenant");
    return c.tenant() == null ? tenant == null : c.tenant().equals(tenant);
  }

  private void create(Message<JsonObject> msg, JsonObject body) {
    if (conversations.size() >= options.getMaxConversations()) {
      msg.fail(FailureCodes.UNAVAILABLE, "too many conversations (" + options.getMaxConversations() + ")");
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
    conversations.add(c);
    AgentbusMetrics.get(vertx).conversationOpened();
    msg.reply(new JsonObject().put("id", id));
  }

  private void send(Message<JsonObject> msg, Conversation c, JsonObject body) {
    Object content;
    try {
      content = UserContent.normalize(body.getValue("content"));
    } catch (UserContent.Invalid e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    if (activeTurns >= options.getMaxActiveTurns()) {
      msg.fail(FailureCodes.UNAVAILABLE, "overloaded: " + activeTurns + " turns running; retry later");
      return;
    }
    if (!c.tryClaim()) {
      failBusyOrGone(msg, c, "is already running a turn");
      return;
    }
    activeTurns++;
    c.turnStarted();
    int committed = c.history().size();
    runner.run(c, content).onComplete(ar -> {
      activeTurns--;
      if (ar.failed()) {
        // a failed turn leaves the history as the last turn that ended left it
        c.history().subList(committed, c.history().size()).clear();
      }
      c.release();
      if (ar.succeeded()) {
        msg.reply(ar.result(), SharedJsonCodec.shared());
      } else {
        Throwable err = ar.cause();
        LOG.warn("[{}] turn failed: {}", c.id(), err.getMessage());
        failTurn(msg, err);
      }
      if (draining && activeTurns == 0) {
        drainWaiters.forEach(w -> w.reply(drained()));
        drainWaiters.clear();
      }
    });
  }

  /**
   * A model API failure is 502, except a rate limit (429) or overload (503) that outlasted the
   * retries: those say when to come back, and the caller gets that through.
   */
  private static void failTurn(Message<JsonObject> msg, Throwable err) {
    if (!(err instanceof ModelException me)) {
      msg.fail(FailureCodes.INTERNAL, String.valueOf(err.getMessage()));
      return;
    }
    String message = "model API error: " + me.getMessage();
    switch (me.kind()) {
      case RATE_LIMITED -> msg.reply(new RetryLaterException(FailureCodes.QUEUE_FULL, message, me.retryAfterMs()));
      case OVERLOADED -> msg.reply(new RetryLaterException(FailureCodes.UNAVAILABLE, message, me.retryAfterMs()));
      default -> msg.fail(FailureCodes.UPSTREAM, message);
    }
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

  private void failBusyOrGone(Message<JsonObject> msg, Conversation c, String what) {
    if (conversations.get(c.id()) != c) {
      msg.fail(FailureCodes.NOT_FOUND, "no conversation '" + c.id() + "'");
    } else {
      msg.fail(FailureCodes.CONFLICT, "conversation '" + c.id() + "' " + what);
    }
  }

  private void forgetIdle() {
    long now = System.nanoTime();
    int forgotten = 0;
    for (Conversation c : conversations.all()) {
      if (c.idleFor(options.getIdleTimeoutMs(), now) && c.tryClaim()) {
        c.markDeleted();
        conversations.remove(c);
        forgotten++;
      }
    }
    if (forgotten > 0) {
      AgentbusMetrics.get(vertx).conversationsClosed(forgotten);
      LOG.info("conversation shard {}: forgot {} conversations idle for {} ms", shard, forgotten, options.getIdleTimeoutMs());
    }
  }

  private void delete(Message<JsonObject> msg, Conversation c) {
    if (!c.tryClaim()) {
      failBusyOrGone(msg, c, "is running a turn; delete it afterwards");
      return;
    }
    c.markDeleted();
    conversations.remove(c);
    AgentbusMetrics.get(vertx).conversationsClosed(1);
    msg.reply(new JsonObject().put("id", c.id()).put("deleted", true));
  }
}
