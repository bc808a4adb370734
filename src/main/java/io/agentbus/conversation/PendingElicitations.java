package io.agentbus.conversation;

import io.agentbus.bus.Addresses;
import io.agentbus.bus.FailureCodes;
import io.agentbus.catalog.SchemaCheck;
import io.agentbus.mcp.ElicitationForm;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The elicitations one conversation instance holds open: a server asked the user of a
 * conversation for input during a tool call ({@code elicit} on the instance running the turn).
 * Each gets an id, an {@code input_required} event on the conversation's events address and its
 * own bus address ({@link Addresses#elicitation}) where the answer is sent. An answer is checked
 * against the requested schema after its defaults are applied (SEP-1034); an invalid one fails
 * with 400 and the elicitation stays open. It is answered {@code cancel} when the call's time
 * runs out, when the turn ends, and when the instance stops. At most {@link #MAX_OPEN} are open per instance and
 * {@link #MAX_PER_CONVERSATION} per conversation; more are declined at once. Confined to the
 * instance's context.
 */
final class PendingElicitations {

  private static final Logger LOG = LoggerFactory.getLogger(PendingElicitations.class);
  /** Open elicitations per conversation instance. */
  static final int MAX_OPEN = 1_000;
  /** Open elicitations per conversation. */
  static final int MAX_PER_CONVERSATION = 8;
  /** Prefix of the 400 failure of an answer that does not match the requested schema. */
  static final String INVALID = "the answer does not match the requested schema:";

  /** One open elicitation. */
  private final class Open {
    final String id = UUID.randomUUID().toString();
    final String conversationId;
    final String tenant;
    final ElicitationForm form;
    final SchemaCheck check;
    final Message<JsonObject> request;
    final String eventsAddress;
    final JsonObject eventFields;
    long timer = -1;
    MessageConsumer<JsonObject> consumer;
    /** The {@code input_required} event, once published (what {@code elicitations} lists). */
    JsonObject event;

    Open(String conversationId, String tenant, ElicitationForm form, Message<JsonObject> request, String eventsAddress,
         JsonObject eventFields) {
      this.conversationId = conversationId;
      this.tenant = tenant;
      this.form = form;
      this.check = SchemaCheck.compile("elicitation of conversation " + conversationId, form.schema());
      this.request = request;
      this.eventsAddress = eventsAddress;
      this.eventFields = eventFields;
    }
  }

  private final Vertx vertx;
  private final Map<String, Open> open = new LinkedHashMap<>();
  /** Per conversation with open elicitations: the consumer that lists them. */
  private final Map<String, MessageConsumer<JsonObject>> listings = new LinkedHashMap<>();

  PendingElicitations(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * An {@code elicit} request from a server verticle: {@code {conversationId, tenant?, server,
   * toolUseId?, message, requestedSchema, timeoutMs, eventsAddress?, eventFields?}}.
   */
  void open(Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    if (!(body.getValue("conversationId") instanceof String conversationId) || !(body.getValue("message") instanceof String text)
      || !(body.getValue("timeoutMs") instanceof Number timeout)) {
      msg.fail(FailureCodes.BAD_REQUEST, "elicit needs {conversationId, message, requestedSchema, timeoutMs}");
      return;
    }
    ElicitationForm form;
    try {
      form = ElicitationForm.parse(body.getValue("requestedSchema"));
    } catch (IllegalArgumentException e) {
      msg.fail(FailureCodes.BAD_REQUEST, e.getMessage());
      return;
    }
    long ofConversation = open.values().stream().filter(o -> o.conversationId.equals(conversationId)).count();
    if (open.size() >= MAX_OPEN || ofConversation >= MAX_PER_CONVERSATION) {
      msg.reply(decline("too many elicitations are waiting for an answer"));
      return;
    }
    String events = body.getValue("eventsAddress") instanceof String a ? a : Addresses.conversationEvents(conversationId);
    JsonObject fields = body.getValue("eventFields") instanceof JsonObject f ? f.copy()
      : new JsonObject().put("conversationId", conversationId);
    Open o = new Open(conversationId, body.getValue("tenant") instanceof String t ? t : null, form, msg, events, fields);
    open.put(o.id, o);
    o.timer = vertx.setTimer(Math.max(1, timeout.longValue()), t -> close(o, "cancel", null, "timeout"));
    o.consumer = vertx.eventBus().consumer(Addresses.elicitation(o.id), answer -> answer(o, answer));
    o.consumer.completion().onComplete(ar -> {
      if (open.get(o.id) != o) {
        return;
      }
      if (ar.failed()) {
        close(o, "cancel", null, "its answer address could not be registered");
        return;
      }
      JsonObject event = o.eventFields.copy().put("type", "input_required").put("conversationId", conversationId)
        .put("elicitationId", o.id).put("mode", "form").put("message", text).put("requestedSchema", form.schema().copy())
        .put("timeoutMs", timeout.longValue()).put("expiresAt", System.currentTimeMillis() + timeout.longValue());
      if (body.getValue("server") instanceof String server) {
        event.put("server", server);
      }
      if (body.getValue("toolUseId") instanceof String use) {
        event.put("tool_use_id", use);
      }
      o.event = event;
      listings.computeIfAbsent(conversationId, id -> vertx.eventBus().<JsonObject>consumer(
        Addresses.conversationElicitations(id), m -> list(id, m)));
      vertx.eventBus().publish(o.eventsAddress, event);
    });
  }

  /** Lists a conversation's open elicitations ({@code input_required} events) to its tenant; to others none. */
  private void list(String conversationId, Message<JsonObject> msg) {
    Object tenant = msg.body() == null ? null : msg.body().getValue("tenant");
    JsonArray items = new JsonArray();
    for (Open o : open.values()) {
      if (o.conversationId.equals(conversationId) && o.event != null && Objects.equals(o.tenant, tenant)) {
        items.add(o.event.copy());
      }
    }
    msg.reply(new JsonObject().put("elicitations", items));
  }

  private static JsonObject decline(String reason) {
    return new JsonObject().put("action", "decline").put("_meta", new JsonObject().put("io.agentbus/reason", reason));
  }

  /** An answer {@code {id, elicitationId, tenant?, action, content?}} arrived on the elicitation's address. */
  private void answer(Open o, Message<JsonObject> msg) {
    JsonObject body = msg.body() == null ? new JsonObject() : msg.body();
    if (open.get(o.id) != o || !o.conversationId.equals(body.getValue("id"))
      || !Objects.equals(o.tenant, body.getValue("tenant"))) {
      msg.fail(FailureCodes.NOT_FOUND, "no open elicitation '" + body.getValue("elicitationId") + "' in conversation '"
        + body.getValue("id") + "'");
      return;
    }
    Object action = body.getValue("action");
    if (!"accept".equals(action) && !"decline".equals(action) && !"cancel".equals(action)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'action' must be \"accept\", \"decline\" or \"cancel\"");
      return;
    }
    if (!"accept".equals(action)) {
      close(o, (String) action, null, "answered");
      msg.reply(new JsonObject().put("elicitationId", o.id).put("action", action));
      return;
    }
    Object content = body.getValue("content");
    if (content != null && !(content instanceof JsonObject)) {
      msg.fail(FailureCodes.BAD_REQUEST, "field 'content' must be an object (the form's fields)");
      return;
    }
    JsonObject filled = o.form.withDefaults((JsonObject) content);
    o.check.check(vertx, filled).onComplete(ar -> {
      if (open.get(o.id) != o) {
        msg.fail(FailureCodes.NOT_FOUND, "elicitation '" + o.id + "' is no longer open");
        return;
      }
      List<String> violations = ar.succeeded() ? ar.result() : List.of(String.valueOf(ar.cause().getMessage()));
      if (!violations.isEmpty()) {
        msg.fail(FailureCodes.BAD_REQUEST, INVALID + "\n- " + String.join("\n- ", violations));
        return;
      }
      close(o, "accept", filled, "answered");
      msg.reply(new JsonObject().put("elicitationId", o.id).put("action", "accept").put("content", filled));
    });
  }

  /** Answers the server and forgets the elicitation; publishes {@code input_resolved}. */
  private void close(Open o, String action, JsonObject content, String why) {
    if (open.remove(o.id) != o) {
      return;
    }
    vertx.cancelTimer(o.timer);
    if (o.consumer != null) {
      o.consumer.unregister();
    }
    if (open.values().stream().noneMatch(other -> other.conversationId.equals(o.conversationId))) {
      MessageConsumer<JsonObject> listing = listings.remove(o.conversationId);
      if (listing != null) {
        listing.unregister();
      }
    }
    JsonObject result = new JsonObject().put("action", action);
    if (content != null) {
      result.put("content", content);
    }
    o.request.reply(result);
    if (!"answered".equals(why)) {
      LOG.info("[{}] elicitation {} ended with {}: {}", o.conversationId, o.id, action, why);
    }
    vertx.eventBus().publish(o.eventsAddress, o.eventFields.copy().put("type", "input_resolved")
      .put("conversationId", o.conversationId).put("elicitationId", o.id).put("action", action).put("reason", why));
  }

  /** Cancels the conversation's open elicitations: its turn ended, so the calls that asked are over. */
  void closeConversation(String conversationId) {
    for (Open o : new ArrayList<>(open.values())) {
      if (o.conversationId.equals(conversationId)) {
        close(o, "cancel", null, "the turn ended");
      }
    }
  }

  /** Cancels every open elicitation (the instance stops). */
  void closeAll() {
    for (Open o : new ArrayList<>(open.values())) {
      close(o, "cancel", null, "Agentbus is stopping");
    }
  }

  int size() {
    return open.size();
  }
}
