package io.agentbus.model.anthropic;

import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Usage;
import io.agentbus.model.impl.ModelHttp;
import io.agentbus.model.impl.StreamAssembler;
import io.agentbus.sse.SseEvent;
import io.vertx.core.Handler;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Assembles an Anthropic message from its SSE events: blocks are kept per {@code index}; text,
 * thinking and signatures are concatenated; a tool_use input is the concatenation of its
 * {@code partial_json} fragments, parsed once at {@code content_block_stop} (empty means
 * {@code {}}); {@code message_delta} usage is cumulative; {@code ping} and unknown events are
 * ignored; an {@code error} event fails the stream.
 */
final class AnthropicStreamAssembler implements StreamAssembler {

  private static final class Block {
    final JsonObject json;
    final StringBuilder text = new StringBuilder();
    final StringBuilder signature = new StringBuilder();
    boolean done;

    Block(JsonObject json) {
      this.json = json;
    }
  }

  private final ModelHttp http;
  private final Handler<ModelStreamEvent> handler;
  private final Supplier<String> requestId;
  private final Map<Integer, Block> blocks = new TreeMap<>();
  private JsonObject message;
  private Usage usage = Usage.ZERO;
  private String stopReason;
  private String stopSequence;
  private JsonObject stopDetails;
  private boolean stopped;

  AnthropicStreamAssembler(ModelHttp http, Handler<ModelStreamEvent> handler, Supplier<String> requestId) {
    this.http = http;
    this.handler = handler;
    this.requestId = requestId;
  }

  @Override
  public void handle(SseEvent event) {
    String name = event.event();
    if ("ping".equals(name) || event.isEmpty()) {
      return;
    }
    JsonObject data;
    try {
      data = new JsonObject(event.data());
    } catch (DecodeException e) {
      throw http.protocolError("unparseable '" + name + "' event data", requestId.get());
    }
    String type = data.getString("type", name);
    switch (type) {
      case "message_start" -> messageStart(data);
      case "content_block_start" -> blockStart(data);
      case "content_block_delta" -> blockDelta(data);
      case "content_block_stop" -> blockStop(data);
      case "message_delta" -> messageDelta(data);
      case "message_stop" -> stopped = true;
      case "error" -> throw http.streamError(data, requestId.get());
      default -> {
        // ping and future event types are ignored
      }
    }
  }

  private void messageStart(JsonObject data) {
    message = data.getJsonObject("message", new JsonObject());
    usage = Usage.fromJson(message.getJsonObject("usage"));
    handler.handle(new ModelStreamEvent.MessageStarted(message.getString("id"), message.getString("model")));
    handler.handle(new ModelStreamEvent.UsageUpdated(usage));
  }

  private void blockStart(JsonObject data) {
    int index = data.getInteger("index", blocks.size());
    JsonObject cb = data.getJsonObject("content_block", new JsonObject()).copy();
    Block b = new Block(cb);
    switch (cb.getString("type", "")) {
      case "text" -> b.text.append(cb.getString("text", ""));
      case "thinking" -> {
        b.text.append(cb.getString("thinking", ""));
        b.signature.append(cb.getString("signature", ""));
      }
      case "tool_use", "server_tool_use" -> handler.handle(
          new ModelStreamEvent.ToolUseStarted(index, cb.getString("id"), cb.getString("name")));
      default -> {
      }
    }
    blocks.put(index, b);
  }

  private void blockDelta(JsonObject data) {
    int index = data.getInteger("index", -1);
    Block b = blocks.get(index);
    JsonObject delta = data.getJsonObject("delta", new JsonObject());
    if (b == null) {
      throw http.protocolError("content_block_delta for unknown index " + index, requestId.get());
    }
    switch (delta.getString("type", "")) {
      case "text_delta" -> {
        String t = delta.getString("text", "");
        b.text.append(t);
        handler.handle(new ModelStreamEvent.TextDelta(index, t));
      }
      case "input_json_delta" -> {
        String p = delta.getString("partial_json", "");
        b.text.append(p);
        handler.handle(new ModelStreamEvent.ToolInputDelta(index, p));
      }
      case "thinking_delta" -> {
        String t = delta.getString("thinking", "");
        b.text.append(t);
        handler.handle(new ModelStreamEvent.ThinkingDelta(index, t));
      }
      case "signature_delta" -> b.signature.append(delta.getString("signature", ""));
      case "citations_delta" -> {
        JsonArray citations = b.json.getJsonArray("citations");
        if (citations == null) {
          citations = new JsonArray();
          b.json.put("citations", citations);
        }
        citations.add(delta.getValue("citation"));
      }
      default -> {
      }
    }
  }

  private void blockStop(JsonObject data) {
    int index = data.getInteger("index", -1);
    Block b = blocks.get(index);
    if (b == null) {
      throw http.protocolError("content_block_stop for unknown index " + index, requestId.get());
    }
    finishBlock(b);
    handler.handle(new ModelStreamEvent.BlockCompleted(index, b.json.copy()));
  }

  private static void finishBlock(Block b) {
    if (b.done) {
      return;
    }
    b.done = true;
    switch (b.json.getString("type", "")) {
      case "text" -> b.json.put("text", b.text.toString());
      case "thinking" -> b.json.put("thinking", b.text.toString()).put("signature", b.signature.toString());
      case "tool_use", "server_tool_use" -> {
        String raw = b.text.toString();
        if (raw.isBlank()) {
          if (!(b.json.getValue("input") instanceof JsonObject)) {
            b.json.put("input", new JsonObject());
          }
        } else {
          try {
            b.json.put("input", new JsonObject(raw));
          } catch (DecodeException | ClassCastException e) {
            b.json.put("input", new JsonObject()).put("_invalid_arguments", raw);
          }
        }
      }
      default -> {
      }
    }
  }

  private void messageDelta(JsonObject data) {
    JsonObject delta = data.getJsonObject("delta", new JsonObject());
    if (delta.containsKey("stop_reason")) {
      stopReason = delta.getString("stop_reason");
      stopSequence = delta.getString("stop_sequence");
      stopDetails = delta.getJsonObject("stop_details");
      handler.handle(new ModelStreamEvent.Stopped(stopReason, stopSequence));
    }
    if (data.getJsonObject("usage") != null) {
      usage = usage.overlay(data.getJsonObject("usage"));
      handler.handle(new ModelStreamEvent.UsageUpdated(usage));
    }
  }

  @Override
  public ModelResponse finish() {
    if (message == null || !stopped) {
      throw http.transportFailure(new io.vertx.core.VertxException(
          "stream ended before " + (message == null ? "message_start" : "message_stop"), true));
    }
    JsonArray content = new JsonArray();
    for (Block b : blocks.values()) {
      finishBlock(b);
      content.add(b.json);
    }
    JsonObject raw = message.copy()
        .put("content", content.copy())
        .put("stop_reason", stopReason)
        .put("stop_sequence", stopSequence)
        .put("usage", usage.toJson());
    if (stopDetails != null) {
      raw.put("stop_details", stopDetails);
    }
    return new ModelResponse(message.getString("id"), message.getString("model"), content, stopReason,
        stopSequence, stopDetails, usage, requestId.get(), raw);
  }
}
