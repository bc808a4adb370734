package io.agentbus.dispatch;

import io.agentbus.model.Provider;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A parsed {@code dispatch} request body:
 * <pre>{@code
 * {"provider": "anthropic" | "openai",
 *  "catalogVersion": 7,                 // the snapshot the model request used (optional)
 *  "content": [ ...assistant content blocks: text, thinking, tool_use... ],
 *  "timeoutMs": 30000,                  // optional MCP timeout per call (progress restarts it)
 *  "budgetMs": 120000,                  // optional: the most each call may take in all (the caller's deadline)
 *  "eventsAddress": "...",              // optional: per-call events are published there
 *  "eventFields": {...},                // optional: copied into every event (e.g. conversationId)
 *  "tenant": "acme",                    // optional: the tenant whose conversation made the calls
 *  "caller": {"address": "...", "roots": [...]}}  // optional: where the servers' requests during
 *                                       // the calls go, and the conversation's roots
 * }</pre>
 *
 * @param provider who will read the results
 * @param catalogVersion the snapshot version, or {@code null} for the current one
 * @param calls the tool_use blocks in order
 * @param timeoutMs the per-call timeout, or {@code null}
 * @param budgetMs what is left of the caller's deadline for each call (waiting, running and
 *     progress extensions included), or {@code null} for the dispatcher's default
 * @param eventsAddress where to publish per-call events, or {@code null}
 * @param eventFields fields copied into every per-call event, or {@code null}
 * @param tenant the tenant whose conversation made the calls, or {@code null}
 * @param caller {@code {address?, roots?}}: where the servers' requests during the calls
 *     (elicitation, sampling) are sent, and the conversation's roots; or {@code null}
 */
public record DispatchRequest(Provider provider, Long catalogVersion, List<ToolUse> calls, Long timeoutMs, Long budgetMs,
                              String eventsAddress, JsonObject eventFields, String tenant, JsonObject caller) {

  /**
   * One tool_use block.
   *
   * @param id its id
   * @param name the model-side tool name
   * @param input the arguments ({@code null} when {@code input} is not an object)
   * @param invalidArguments the raw arguments string the OpenAI client could not parse, or {@code null}
   */
  public record ToolUse(String id, String name, JsonObject input, String invalidArguments) {
  }

  /** Thrown for a body that cannot be dispatched; the message says why. */
  public static final class Invalid extends RuntimeException {
    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * Parses and checks a body.
   *
   * @throws Invalid when the provider is unknown, {@code content} is not an array, there is
   *     no tool_use block, a tool_use has no string id, or ids repeat (no call is made then)
   */
  public static DispatchRequest parse(JsonObject body) {
    if (body == null) {
      throw new Invalid("the body must be a JSON object");
    }
    Provider provider = Provider.find(body.getValue("provider") instanceof String p ? p : null);
    if (provider == null) {
      throw new Invalid("'provider' must be " + Provider.choices("\""));
    }
    if (!(body.getValue("content") instanceof JsonArray content)) {
      throw new Invalid("'content' must be the assistant message's content array");
    }
    List<ToolUse> calls = new ArrayList<>();
    Set<String> ids = new LinkedHashSet<>();
    Set<String> duplicates = new LinkedHashSet<>();
    for (int i = 0; i < content.size(); i++) {
      if (!(content.getValue(i) instanceof JsonObject block) || !"tool_use".equals(block.getValue("type"))) {
        continue;
      }
      if (!(block.getValue("id") instanceof String id) || id.isEmpty()) {
        throw new Invalid("content[" + i + "]: a tool_use block needs a non-empty string 'id'");
      }
      if (!ids.add(id)) {
        duplicates.add(id);
      }
      String name = block.getValue("name") instanceof String n ? n : "";
      JsonObject input = block.getValue("input") instanceof JsonObject o ? o : null;
      String invalid = block.getValue("_invalid_arguments") != null ? String.valueOf(block.getValue("_invalid_arguments")) : null;
      calls.add(new ToolUse(id, name, input, invalid));
    }
    if (!duplicates.isEmpty()) {
      throw new Invalid("duplicate tool_use ids " + duplicates + ": each id must be answered exactly once, so nothing was run");
    }
    if (calls.isEmpty()) {
      throw new Invalid("'content' has no tool_use block");
    }
    Long version = body.getValue("catalogVersion") instanceof Number v ? v.longValue() : null;
    Long timeout = body.getValue("timeoutMs") instanceof Number t && t.longValue() > 0 ? t.longValue() : null;
    // a budget of 0 (or less) is kept: the caller's deadline has passed, and no call is started
    Long budget = body.getValue("budgetMs") instanceof Number b ? Math.max(0, b.longValue()) : null;
    String events = body.getValue("eventsAddress") instanceof String a && !a.isBlank() ? a : null;
    JsonObject fields = body.getValue("eventFields") instanceof JsonObject f ? f : null;
    Object tenant = body.getValue("tenant");
    if (tenant != null && !(tenant instanceof String)) {
      throw new Invalid("'tenant' must be a string");
    }
    Object caller = body.getValue("caller");
    if (caller != null && !(caller instanceof JsonObject)) {
      throw new Invalid("'caller' must be an object {address?, roots?}");
    }
    return new DispatchRequest(provider, version, List.copyOf(calls), timeout, budget, events, fields, (String) tenant,
      (JsonObject) caller);
  }

  /** @return the conversation this batch belongs to (from {@code eventFields}), or "-" for logs */
  public String conversationId() {
    String id = conversation();
    return id != null ? id : "-";
  }

  /** @return the conversation this batch belongs to (from {@code eventFields}), or {@code null} */
  public String conversation() {
    return eventFields != null && eventFields.getValue("conversationId") instanceof String id ? id : null;
  }
}
