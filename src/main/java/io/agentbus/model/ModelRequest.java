package io.agentbus.model;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Objects;

/**
 * A provider-neutral model call, in the canonical (Anthropic-shaped) format of Agentbus.
 *
 * <ul>
 *   <li>{@code messages}: {@code [{role: "user"|"assistant", content: string | block[]}]}, blocks
 *       being {@code text}, {@code image}, {@code tool_use {id, name, input}},
 *       {@code tool_result {tool_use_id, content, is_error}}, {@code thinking},
 *       {@code redacted_thinking}.
 *   <li>{@code tools}: {@code [{name, description, input_schema}]}.
 *   <li>{@code toolChoice}: Anthropic form, {@code {type: "auto"|"any"|"tool"|"none", name?,
 *       disable_parallel_tool_use?}}.
 * </ul>
 *
 * <p>A plain mutable data object; the JSON form ({@link #toJson()}) is the Anthropic request body.
 */
public class ModelRequest {

  /** Default {@code max_tokens}. */
  public static final int DEFAULT_MAX_TOKENS = 4096;

  private String model;
  private String system;
  private JsonArray messages = new JsonArray();
  private JsonArray tools = new JsonArray();
  private int maxTokens = DEFAULT_MAX_TOKENS;
  private JsonObject toolChoice;
  private JsonArray stopSequences;
  private Double temperature;
  private JsonObject metadata;
  private boolean stream;
  private boolean toolsShared;

  /** An empty request with the defaults. */
  public ModelRequest() {
  }

  /**
   * Copy constructor (the JSON members are copied deeply).
   *
   * @param other the request to copy
   */
  public ModelRequest(ModelRequest other) {
    this(other.toJson());
  }

  /**
   * Reads the Anthropic-shaped JSON form; absent fields keep their defaults.
   *
   * @param json the request body
   */
  public ModelRequest(JsonObject json) {
    model = json.getString("model");
    Object sys = json.getValue("system");
    if (sys instanceof String s) {
      system = s;
    } else if (sys instanceof JsonArray blocks) {
      StringBuilder sb = new StringBuilder();
      for (Object b : blocks) {
        if (b instanceof JsonObject o && o.getString("text") != null) {
          sb.append(sb.length() > 0 ? "\n" : "").append(o.getString("text"));
        }
      }
      system = sb.toString();
    }
    messages = json.getJsonArray("messages", new JsonArray()).copy();
    tools = json.getJsonArray("tools", new JsonArray()).copy();
    maxTokens = json.getInteger("max_tokens", DEFAULT_MAX_TOKENS);
    JsonObject tc = json.getJsonObject("tool_choice");
    toolChoice = tc == null ? null : tc.copy();
    JsonArray ss = json.getJsonArray("stop_sequences");
    stopSequences = ss == null ? null : ss.copy();
    Number t = (Number) json.getValue("temperature");
    temperature = t == null ? null : t.doubleValue();
    JsonObject md = json.getJsonObject("metadata");
    metadata = md == null ? null : md.copy();
    stream = json.getBoolean("stream", false);
  }

  /**
   * The Anthropic Messages request body for this request. The {@code messages} and
   * {@code tools} arrays are new, but the message and tool objects in them are this
   * request's own (the history is not deep-copied on every model call): do not mutate them.
   *
   * @return the request body
   */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    if (model != null) {
      json.put("model", model);
    }
    json.put("max_tokens", maxTokens);
    if (system != null && !system.isEmpty()) {
      json.put("system", system);
    }
    json.put("messages", new JsonArray(new ArrayList<>(messages.getList())));
    if (!tools.isEmpty()) {
      json.put("tools", new JsonArray(new ArrayList<>(tools.getList())));
    }
    if (toolChoice != null) {
      json.put("tool_choice", toolChoice.copy());
    }
    if (stopSequences != null && !stopSequences.isEmpty()) {
      json.put("stop_sequences", stopSequences.copy());
    }
    if (temperature != null) {
      json.put("temperature", temperature);
    }
    if (metadata != null) {
      json.put("metadata", metadata.copy());
    }
    if (stream) {
      json.put("stream", true);
    }
    return json;
  }

  @Override
  public String toString() {
    return "ModelRequest{model=" + model + ", messages=" + messages.size() + ", tools=" + tools.size()
        + ", maxTokens=" + maxTokens + ", stream=" + stream + "}";
  }

  /**
   * Appends a message.
   *
   * @param role {@code user} or {@code assistant}
   * @param content a string or a {@link JsonArray} of content blocks
   * @return this
   */
  public ModelRequest addMessage(String role, Object content) {
    Objects.requireNonNull(role, "'role' cannot be null");
    Objects.requireNonNull(content, "'content' cannot be null");
    messages.add(new JsonObject().put("role", role).put("content", content));
    return this;
  }

  /**
   * @return the model, or null to use {@link ModelOptions#getModel()}
   */
  public String getModel() {
    return model;
  }

  /**
   * @param model the model name
   * @return this
   */
  public ModelRequest setModel(String model) {
    this.model = model;
    return this;
  }

  /**
   * @return the system prompt, or null
   */
  public String getSystem() {
    return system;
  }

  /**
   * @param system the system prompt (Anthropic: top-level {@code system}; OpenAI: a first
   *     {@code system} message)
   * @return this
   */
  public ModelRequest setSystem(String system) {
    this.system = system;
    return this;
  }

  /**
   * @return the canonical messages (live, not a copy)
   */
  public JsonArray getMessages() {
    return messages;
  }

  /**
   * @param messages the canonical messages
   * @return this
   */
  public ModelRequest setMessages(JsonArray messages) {
    this.messages = Objects.requireNonNull(messages, "'messages' cannot be null");
    return this;
  }

  /**
   * @return the neutral tool definitions {@code {name, description, input_schema}} (live)
   */
  public JsonArray getTools() {
    return tools;
  }

  /**
   * @param tools neutral tool definitions {@code {name, description, input_schema}}
   * @return this
   */
  public ModelRequest setTools(JsonArray tools) {
    this.tools = tools == null ? new JsonArray() : tools;
    return this;
  }

  /**
   * @return whether the {@link #getTools() tools} array is a shared one that never changes
   *     (see {@link #setToolsShared})
   */
  public boolean isToolsShared() {
    return toolsShared;
  }

  /**
   * Says that the {@link #getTools() tools} array (and every definition in it) is shared and
   * never modified, as a catalog snapshot's is: a model client may then encode it once and
   * reuse the bytes for every request that carries the same array. Not part of the JSON form.
   *
   * @param toolsShared whether the tools array never changes
   * @return this
   */
  public ModelRequest setToolsShared(boolean toolsShared) {
    this.toolsShared = toolsShared;
    return this;
  }

  /**
   * @return {@code max_tokens}
   */
  public int getMaxTokens() {
    return maxTokens;
  }

  /**
   * @param maxTokens {@code max_tokens}, at least 1
   * @return this
   */
  public ModelRequest setMaxTokens(int maxTokens) {
    if (maxTokens < 1) {
      throw new IllegalArgumentException("maxTokens must be >= 1");
    }
    this.maxTokens = maxTokens;
    return this;
  }

  /**
   * @return the Anthropic-form tool choice, or null (provider default)
   */
  public JsonObject getToolChoice() {
    return toolChoice;
  }

  /**
   * @param toolChoice Anthropic form {@code {type: auto|any|tool|none, name?,
   *     disable_parallel_tool_use?}}, or null
   * @return this
   */
  public ModelRequest setToolChoice(JsonObject toolChoice) {
    if (toolChoice != null && toolChoice.getString("type") == null) {
      throw new IllegalArgumentException("toolChoice needs a 'type'");
    }
    this.toolChoice = toolChoice;
    return this;
  }

  /**
   * @return the stop sequences, or null
   */
  public JsonArray getStopSequences() {
    return stopSequences;
  }

  /**
   * @param stopSequences stop sequences (strings), or null
   * @return this
   */
  public ModelRequest setStopSequences(JsonArray stopSequences) {
    this.stopSequences = stopSequences;
    return this;
  }

  /**
   * @return the temperature, or null for the provider default
   */
  public Double getTemperature() {
    return temperature;
  }

  /**
   * @param temperature between 0 and 2, or null for the provider default
   * @return this
   */
  public ModelRequest setTemperature(Double temperature) {
    if (temperature != null && (temperature < 0 || temperature > 2)) {
      throw new IllegalArgumentException("temperature must be within [0, 2]");
    }
    this.temperature = temperature;
    return this;
  }

  /**
   * @return request metadata (e.g. {@code {user_id}}), or null
   */
  public JsonObject getMetadata() {
    return metadata;
  }

  /**
   * @param metadata request metadata such as {@code {user_id}}, or null
   * @return this
   */
  public ModelRequest setMetadata(JsonObject metadata) {
    this.metadata = metadata;
    return this;
  }

  /**
   * @return the stream flag (informational: {@link ModelClient#stream} always streams, {@link
   *     ModelClient#send} never does)
   */
  public boolean isStream() {
    return stream;
  }

  /**
   * @param stream the stream flag
   * @return this
   */
  public ModelRequest setStream(boolean stream) {
    this.stream = stream;
    return this;
  }
}
