package io.agentbus.conversation;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.RetryLaterException;
import io.agentbus.bus.SharedJsonCodec;
import io.agentbus.catalog.ToolCatalog;
import io.agentbus.cluster.ClusterNodes;
import io.agentbus.dispatch.DispatcherOptions;
import io.agentbus.dispatch.ToolDispatcher;
import io.agentbus.limits.JsonHeap;
import io.agentbus.mcp.McpRoots;
import io.agentbus.metrics.AgentbusMetrics;
import io.agentbus.model.ModelClient;
import io.agentbus.model.ModelException;
import io.agentbus.store.ConversationStore;
import io.agentbus.store.NewConversation;
import io.agentbus.store.StoreException;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.LocalMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The conversation service on {@code agentbus.conversation} (actions {@code create},
 * {@code send}, {@code get}, {@code delete}, {@code list}, {@code approve}, {@code approvals}).
 * Deploy several instances to use
 * every core: each also listens on its own address {@code agentbus.conversation.shard.<n>}.
 *
 * <p>The {@link ConversationStore} is the truth; the conversations in memory are a bounded
 * cache in front of it ({@link ConversationRegistry}), shared by the instances and loaded on
 * demand. Whichever instance a request reaches runs the turn on its own context, with its own
 * model client and an in-process {@link ToolDispatcher}: a caller on the same event loop (the
 * HTTP API, see {@link #localAddress(io.vertx.core.Vertx)}) keeps the whole turn on that loop,
 * and only the MCP calls cross to the servers' loops. One conversation runs one turn at a time
 * (the instance that runs it holds the conversation's claim).
 *
 * <p>A turn is committed to the store when it ends, in one write, on the version its history
 * was at: another writer that committed first makes this one fail with 409 (nothing written),
 * a store that cannot be reached makes it fail with 503; either way the conversation stays at
 * its last committed turn, and the {@code done} event is published only after the outcome is
 * known. A failed turn is never stored.
 *
 * <p>On a clustered bus every node's instances serve {@code agentbus.conversation}, and any node
 * may run any conversation's turn: before using its copy in memory, an instance asks the store
 * for the conversation's version and reloads it when another node committed since. Two nodes
 * that start a turn of the same conversation at once both run it; the second to commit gets 409
 * and nothing of its turn is stored (the store's version check is the cluster-wide lock).
 *
 * <p>Bodies: create {@code {system?, tools?: [names or globs], tenant?}} → {@code {id}};
 * send {@code {id, content, tenant?, requestId?, stream?}} → the turn result (every event of the
 * turn carries {@code requestId} when given; {@code stream: false} says nobody watches the turn's
 * text deltas, so the model is asked for whole replies: see {@link TurnRunner}); get {@code {id,
 * tenant?}} → the conversation; delete {@code {id, tenant?}} → {@code {id, deleted: true}}; list {@code {tenant?, limit?, after?}}
 * → {@code {conversations: [...], next?}}; approve {@code {id, toolUseId, approve, reason?, tenant?}}
 * and approvals {@code {id, tenant?}} answer and list the tool calls of the running turn that wait
 * for approval, wherever that turn runs ({@link ApprovalRequests}); drain (on a shard address)
 * refuses new turns and replies once the running ones have finished.
 */
public class ConversationVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ConversationVerticle.class);
  /** The local map of claimed shards: shard number → deployment id. */
  public static final String SHARDS = "agentbus.conversation.shards";
  /** The local map of event-loop threads that run an instance: thread name → shard number. */
  static final String LOOPS = "agentbus.conversation.loops";
  /** Items of a {@code list} page when the caller gives no limit. */
  public static final int DEFAULT_LIST_LIMIT = 50;

  private final ConversationStore store;
  private ConversationRegistry conversations;
  private ConversationOptions options;
  private ModelClient model;
  private TurnRunner runner;
  private ApprovalRequests approvals;
  private ConversationLookup lookup;
  private AgentbusMetrics metrics;
  private int shard = -1;
  private String loop;
  private int activeTurns;
  private boolean clustered;
  private boolean draining;
  private final List<Message<JsonObject>> drainWaiters = new ArrayList<>();
  private PendingElicitations elicitations;
  private SamplingRequests sampling;

  /**
   * @param store where conversations are kept; shared by every instance of the deployment and
   *     closed by whoever opened it
   */
  public ConversationVerticle(ConversationStore store) {
    this.store = Objects.requireNonNull(store, "'store' cannot be null");
  }

  @Override
  public Future<?> start() {
    metrics = AgentbusMetrics.get(vertx);
    SharedJsonCodec.register(vertx);
    options = new ConversationOptions(config());
    conversations = ConversationRegistry.shared(vertx, options.getMaxConversations(), options.getMemoryBytes());
    model = ModelClient.create(vertx, options.getModel());
    ToolCatalog catalog = ToolCatalog.shared(vertx);
    DispatcherOptions dispatch = config().getValue("dispatcher") instanceof JsonObject d
      ? new DispatcherOptions(d) : new DispatcherOptions();
    runner = new TurnRunner(vertx, model, options, catalog, new ToolDispatcher(vertx, catalog, dispatch));
    lookup = new ConversationLookup(store, conversations, metrics, vertx.isClustered());
    approvals = new ApprovalRequests(vertx, lookup::resolve);
    shard = claimShard();
    if (context.isEventLoopContext()) {
      loop = Thread.currentThread().getName();
      vertx.sharedData().<String, Integer>getLocalMap(LOOPS).putIfAbsent(loop, shard);
    }
    if (options.getIdleTimeoutMs() > 0 && shard == 0) {
      long every = Math.max(1_000, Math.min(60_000, options.getIdleTimeoutMs() / 4));
      vertx.setPeriodic(every, t -> forgetIdle());
    }
    clustered = vertx.isClustered();
    elicitations = new PendingElicitations(vertx);
    sampling = new SamplingRequests(model, options, conversations, runner.modelName(), metrics);
    // where the servers' requests during this instance's turns' tool calls come (cluster-wide when clustered)
    String callerAddress = clustered ? Addresses.conversationInstance(ClusterNodes.nodeId(vertx), shard)
      : Addresses.conversationShard(shard);
    runner.callerAddress(callerAddress);
    // the front address is cluster-wide (a node without conversations sends its turns here);
    // a shard address names an instance of this node only
    var front = vertx.eventBus().<JsonObject>consumer(Addresses.CONVERSATION, this::onRequest);
    var own = vertx.eventBus().<JsonObject>localConsumer(Addresses.conversationShard(shard), this::onRequest);
    if (!clustered) {
      return Future.all(front.completion(), own.completion());
    }
    var node = vertx.eventBus().<JsonObject>consumer(Addresses.conversationNode(ClusterNodes.nodeId(vertx)), this::onRequest);
    var instance = vertx.eventBus().<JsonObject>consumer(callerAddress, this::onRequest);
    return Future.all(front.completion(), own.completion(), node.completion(), instance.completion());
  }

  @Override
  public Future<?> stop() {
    if (elicitations != null) {
      elicitations.closeAll();
    }
    if (shard >= 0) {
      shards().remove(String.valueOf(shard));
    }
    if (loop != null) {
      vertx.sharedData().<String, Integer>getLocalMap(LOOPS).remove(loop, shard);
    }
    if (shards().isEmpty()) {
      metrics.conversationsClosed(conversations.size());
      conversations.clear();
      ConversationRegistry.release(vertx);
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
    if (Actions.LIST.equals(action)) {
      list(msg, body);
      return;
    }
    if (Actions.ELICIT.equals(action)) {
      elicitations.open(msg);
      return;
    }
    if (Actions.SAMPLE.equals(action)) {
      sampling.handle(msg);
      return;
    }
    if (Actions.ANSWER.equals(action)) {
      ElicitationAnswers.forward(vertx, msg, body);
      return;
    }
    if (Actions.ELICITATIONS.equals(action)) {
      ElicitationAnswers.list(vertx, msg, body);
      return;
    }
    if (!Actions.SEND.equals(action) && !Actions.GET.equals(action) && !Actions.DELETE.equals(action)
        && !Actions.APPROVE.equals(action) && !Actions.APPROVALS.equals(action)) {
      msg.fail(FailureCodes.NOT_FOUND, "unknown action '" + action
        + "' (create, send, get, delete, list, approve, approvals, answer, elicitations)");
      return;
    }
    if (!(body.getValue("id") instanceof String id)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'id' must be a string");
      return;
    }
    switch (action) {
      case Actions.SEND -> send(msg, id, body);
      case Actions.APPROVE, Actions.APPROVALS -> approvals.forward(msg, action, id, body);
      case Actions.GET -> lookup.resolve(id, body).onComplete(ar -> {
        if (ar.succeeded()) {
          msg.reply(ar.result().toJson());
        } else {
          Refusal.reply(msg, ar.cause());
        }
      });
      default -> delete(msg, id, body, true);
    }
  }

  /**
   * @return whether {@code body}'s optional {@code field} is absent or a {@code type}; if not,
   *     {@code msg} is failed with 400 "field '<field>' must be <expected>"
   */
  private static boolean optional(Message<?> msg, JsonObject body, String field, Class<?> type, String expected) {
    Object value = body.getValue(field);
    if (value == null || type.isInstance(value)) {
      return true;
    }
    msg.fail(FailureCodes.BAD_REQUEST, "field '" + field + "' must be " + expected);
    return false;
  }

  private void create(Message<JsonObject> msg, JsonObject body) {
    if (!optional(msg, body, "system", String.class, "a string") || !optional(msg, body, "tenant", String.class, "a string")) {
      return;
    }
    String system = body.getString("system");
    String tenant = body.getString("tenant");
    Object tools = body.getValue("tools");
    List<String> patterns = new ArrayList<>();
    if (tools != null) {
      if (!(tools instanceof JsonArray arr) || !arr.stream().allMatch(o -> o instanceof String)) {
        msg.fail(FailureCodes.BAD_REQUEST, "field 'tools' must be an array of tool names or globs");
        return;
      }
      arr.forEach(o -> patterns.add((String) o));
    }
    JsonArray roots;
    try {
      roots = McpRoots.check(body.getValue("roots"), "field 'roots'");
    } catch (IllegalArgumentException e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!lookup.roomFor(1, 0)) {
      Refusal.reply(msg, lookup.memoryFull());
      return;
    }
    String id = ConversationIds.newId(shard);
    Conversation c = new Conversation(id, tenant, system != null ? system : options.getSystem(),
      patterns.isEmpty() ? ToolSelection.ALL : new ToolSelection(patterns)).withRoots(roots);
    store.insert(new NewConversation(id, c.tenant(), null, c.system(), c.storedTools())).onComplete(ar -> {
      if (ar.failed()) {
        LOG.warn("[{}] not created: {}", id, ar.cause().getMessage());
        Refusal.reply(msg, Refusal.ofStore(id, ar.cause()));
        return;
      }
      conversations.addIfAbsent(c);
      metrics.conversationOpened();
      msg.reply(new JsonObject().put("id", id));
    });
  }

  private void list(Message<JsonObject> msg, JsonObject body) {
    if (!optional(msg, body, "tenant", String.class, "a string")) {
      return;
    }
    Object limit = body.getValue("limit");
    if (limit != null && !(limit instanceof Integer n && n >= 1 && n <= ConversationStore.MAX_LIST_LIMIT)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'limit' must be an integer from 1 to " + ConversationStore.MAX_LIST_LIMIT);
      return;
    }
    if (!optional(msg, body, "after", String.class, "a string (a previous page's 'next')")) {
      return;
    }
    int n = limit == null ? DEFAULT_LIST_LIMIT : (Integer) limit;
    store.list(body.getString("tenant"), n, body.getString("after")).onComplete(ar -> {
      if (ar.failed()) {
        Refusal.reply(msg, Refusal.ofStore("-", ar.cause()));
        return;
      }
      JsonArray items = new JsonArray();
      ar.result().items().forEach(s -> items.add(s.toJson()));
      JsonObject page = new JsonObject().put("conversations", items);
      if (ar.result().nextCursor() != null) {
        page.put("next", ar.result().nextCursor());
      }
      msg.reply(page);
    });
  }

  private void send(Message<JsonObject> msg, String id, JsonObject body) {
    Object content;
    try {
      content = UserContent.normalize(body.getValue("content"));
    } catch (UserContent.Invalid e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    if (!optional(msg, body, "requestId", String.class, "a string") || !optional(msg, body, "stream", Boolean.class, "a boolean")) {
      return;
    }
    String requestId = body.getString("requestId");
    if (activeTurns >= options.getMaxActiveTurns()) {
      msg.fail(FailureCodes.UNAVAILABLE, "overloaded: " + activeTurns + " turns running; retry later");
      return;
    }
    long added = JsonHeap.estimate(content);
    lookup.resolve(id, body).onComplete(ar -> {
      if (ar.failed()) {
        Refusal.reply(msg, ar.cause());
      } else {
        startTurn(msg, ar.result(), content, added, requestId, body, true);
      }
    });
  }

  private void startTurn(Message<JsonObject> msg, Conversation c, Object content, long added, String requestId,
                         JsonObject body, boolean mayReload) {
    if (c.heapBytes() + added > options.getMaxHistoryBytes()) {
      msg.fail(FailureCodes.TOO_LARGE, "conversation '" + c.id() + "' holds about " + c.heapBytes() / 1024
        + " KiB of history; this message would take it past its limit of " + options.getMaxHistoryBytes() / 1024
        + " KiB (maxHistoryBytes): start a new conversation");
      return;
    }
    if (!lookup.roomFor(0, added)) {
      Refusal.reply(msg, lookup.memoryFull());
      return;
    }
    if (activeTurns >= options.getMaxActiveTurns()) {
      msg.fail(FailureCodes.UNAVAILABLE, "overloaded: " + activeTurns + " turns running; retry later");
      return;
    }
    if (!c.tryClaim()) {
      if (c.gone() && mayReload) {
        // evicted (or deleted) since it was looked up: the store decides which
        lookup.resolve(c.id(), body).onComplete(ar -> {
          if (ar.failed()) {
            Refusal.reply(msg, ar.cause());
          } else {
            startTurn(msg, ar.result(), content, added, requestId, body, false);
          }
        });
      } else if (c.gone()) {
        Refusal.reply(msg, Refusal.notFound(c.id()));
      } else {
        msg.fail(FailureCodes.CONFLICT, "conversation '" + c.id() + "' is already running a turn");
      }
      return;
    }
    activeTurns++;
    c.turnStarted();
    int from = c.history().size();
    TurnEvents events = new TurnEvents(vertx.eventBus(), c.id(), requestId);
    runner.run(c, content, events, body.getBoolean("stream", options.isStream()))
      .compose(result -> commit(c, from, result))
      .onComplete(ar -> {
        activeTurns--;
        elicitations.closeConversation(c.id());
        if (ar.failed()) {
          c.rollBack();
          Throwable err = ar.cause();
          if (err instanceof Refusal rf && (rf.code == FailureCodes.CONFLICT || rf.code == FailureCodes.NOT_FOUND)) {
            // what memory holds is stale: the next request loads the store's version
            if (conversations.retire(c)) {
              metrics.conversationsClosed(1);
            }
          }
          events.done(err instanceof Refusal ? new JsonObject().put("status", "error").put("error", err.getMessage())
            : TurnRunner.errorResult(err));
          c.release();
          LOG.warn("[{}] turn failed: {}", c.id(), err.getMessage());
          failTurn(msg, err);
        } else {
          events.done(ar.result());
          c.release();
          msg.reply(ar.result(), SharedJsonCodec.shared());
        }
        if (draining && activeTurns == 0) {
          drainWaiters.forEach(w -> w.reply(drained()));
          drainWaiters.clear();
        }
      });
  }

  /** Writes the turn's messages and usage to the store on the version the history was at. */
  private Future<JsonObject> commit(Conversation c, int from, JsonObject result) {
    List<JsonObject> messages = new ArrayList<>(c.history().subList(from, c.history().size()));
    JsonObject usage = result.getValue("usage") instanceof JsonObject u && u.getValue("turn") instanceof JsonObject t ? t : null;
    return store.appendTurn(c.id(), c.version(), messages, usage).transform(ar -> {
      if (ar.failed()) {
        return Future.failedFuture(Refusal.ofStore(c.id(), ar.cause()));
      }
      conversations.grew(c, c.committed(ar.result().version(), from));
      return Future.succeededFuture(result);
    });
  }

  /**
   * A model API failure is 502, except a rate limit (429) or overload (503) that outlasted the
   * retries: those say when to come back, and the caller gets that through.
   */
  private static void failTurn(Message<JsonObject> msg, Throwable err) {
    if (!(err instanceof ModelException me)) {
      Refusal.reply(msg, err);
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
      runner.refuseApprovals("Agentbus is shutting down, so no answer can be waited for");
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

  /** Idle conversations leave memory; the store keeps them. */
  private void forgetIdle() {
    long now = System.nanoTime();
    long idleNanos = options.getIdleTimeoutMs() * 1_000_000L;
    int forgotten = 0;
    for (Conversation c : conversations.all()) {
      if (!c.busy() && c.idleNanos(now) >= idleNanos && conversations.evict(c)) {
        forgotten++;
      }
    }
    if (forgotten > 0) {
      metrics.conversationsClosed(forgotten);
      LOG.debug("conversation shard {}: {} conversations idle for {} ms left memory", shard, forgotten, options.getIdleTimeoutMs());
    }
  }

  private void delete(Message<JsonObject> msg, String id, JsonObject body, boolean mayReload) {
    lookup.resolve(id, body).onComplete(ar -> {
      if (ar.failed()) {
        Refusal.reply(msg, ar.cause());
        return;
      }
      Conversation c = ar.result();
      if (!c.tryClaim()) {
        if (c.gone() && mayReload) {
          delete(msg, id, body, false);
        } else if (c.gone()) {
          Refusal.reply(msg, Refusal.notFound(id));
        } else {
          msg.fail(FailureCodes.CONFLICT, "conversation '" + id + "' is running a turn; delete it afterwards");
        }
        return;
      }
      store.delete(id).onComplete(d -> {
        if (d.failed() && !(d.cause() instanceof StoreException se && se.kind() == StoreException.Kind.NOT_FOUND)) {
          c.release();
          Refusal.reply(msg, Refusal.ofStore(id, d.cause()));
          return;
        }
        if (conversations.retire(c)) {
          metrics.conversationsClosed(1);
        }
        c.release();
        msg.reply(new JsonObject().put("id", id).put("deleted", true));
        JsonObject deleted = new JsonObject().put("id", id);
        if (c.tenant() != null) {
          deleted.put("tenant", c.tenant());
        }
        vertx.eventBus().publish(Addresses.CONVERSATION_DELETED, deleted);
      });
    });
  }
}
