package io.agentbus.model.openai;

import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Usage;
import io.agentbus.model.impl.ModelHttp;
import io.agentbus.model.impl.StreamAssembler;
import io.agentbus.sse.SseEvent;
import io.vertx.core.Handler;
import io.vertx.core.VertxException;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles a chat completion from its {@code chat.completion.chunk}s: content is concatenated
 * into one text block, tool call fragments are accumulated per {@code index} and parsed when the
 * stream finishes; the usage chunk (from {@code stream_options.include_usage}) and {@code [DONE]}
 * close it. Block indexes are allocated in order of first appearance.
 */
final class OpenAiStreamAssembler implements StreamAssembler {

  private static final class Call {
    final int block;
    String id;
    String name;
    final StringBuilder args = new StringBuilder();

    Call(int block) {
      this.block = block;
    }
  }

  private final ModelHttp http;
  private final Handler<ModelStreamEvent> handler;
  private final java.util.function.Supplier<String> requestId;
  private final List<Object> order = new ArrayList<>();
  private final Map<Integer, Call> calls = new HashMap<>();
  private StringBuilder text;
  private int textBlock = -1;
  private boolean refusal;
  private String id;
  private String model;
  private String finishReason;
  private Usage usage = Usage.ZERO;
  private JsonObject last;
  private boolean done;
  private boolean completed;

  OpenAiStreamAssembler(ModelHttp http, Handler<ModelStreamEvent> handler,
      java.util.function.Supplier<String> requestId) {
    this.http = http;
    this.handler = handler;
    this.requestId = requestId;
  }

  @Override
  public void handle(SseEvent event) {
    String data = event.data();
    if (data.isEmpty()) {
      return;
    }
    if ("[DONE]".equals(data.trim())) {
      done = true;
      return;
    }
    JsonObject chunk;
    try {
      chunk = new JsonObject(data);
    } catch (DecodeException e) {
      throw http.protocolError("unparseable stream chunk", requestId.get());
    }
    if ("error".equals(event.event()) || chunk.getValue("error") instanceof JsonObject) {
      throw http.streamError(chunk, requestId.get());
    }
    last = chunk;
    if (id == null) {
      id = chunk.getString("id");
      model = chunk.getString("model");
      handler.handle(new ModelStreamEvent.MessageStarted(id, model));
    }
    JsonArray choices = chunk.getJsonArray("choices", new JsonArray());
    if (!choices.isEmpty()) {
      choice(choices.getJsonObject(0));
    }
    if (chunk.getValue("usage") instanceof JsonObject u) {
      usage = OpenAiCodec.usage(u);
      handler.handle(new ModelStreamEvent.UsageUpdated(usage));
    }
  }

  private void choice(JsonObject choice) {
    JsonObject delta = choice.getJsonObject("delta", new JsonObject());
    String piece = delta.getString("content");
    if (piece == null && delta.getString("refusal") != null) {
      piece = delta.getString("refusal");
      refusal = true;
    }
    if (piece != null && !piece.isEmpty()) {
      if (text == null) {
        text = new StringBuilder();
        textBlock = order.size();
        order.add(text);
      }
      text.append(piece);
      handler.handle(new ModelStreamEvent.TextDelta(textBlock, piece));
    }
    JsonArray toolCalls = delta.getJsonArray("tool_calls");
    if (toolCalls != null) {
      for (Object o : toolCalls) {
        toolCallDelta((JsonObject) o);
      }
    }
    if (choice.getString("finish_reason") != null) {
      finishReason = choice.getString("finish_reason");
      complete();
    }
  }

  private void toolCallDelta(JsonObject tc) {
    int index = tc.getInteger("index", calls.size());
    Call call = calls.get(index);
    JsonObject fn = tc.getJsonObject("function", new JsonObject());
    if (call == null) {
      call = new Call(order.size());
      order.add(call);
      calls.put(index, call);
    }
    if (tc.getString("id") != null) {
      call.id = tc.getString("id");
    }
    if (fn.getString("name") != null) {
      boolean first = call.name == null;
      call.name = first ? fn.getString("name") : call.name + fn.getString("name");
      if (first) {
        handler.handle(new ModelStreamEvent.ToolUseStarted(call.block, call.id, call.name));
      }
    }
    String args = fn.getString("arguments");
    if (args != null && !args.isEmpty()) {
      call.args.append(args);
      handler.handle(new ModelStreamEvent.ToolInputDelta(call.block, args));
    }
  }

  private void complete() {
    if (completed) {
      return;
    }
    completed = true;
    JsonArray content = content();
    for (int i = 0; i < content.size(); i++) {
      handler.handle(new ModelStreamEvent.BlockCompleted(i, content.getJsonObject(i).copy()));
    }
    handler.handle(new ModelStreamEvent.Stopped(stopReason(), null));
  }

  private String stopReason() {
    return OpenAiCodec.stopReason(finishReason, !calls.isEmpty(), refusal);
  }

  private JsonArray content() {
    JsonArray content = new JsonArray();
    for (Object o : order) {
      if (o instanceof Call c) {
        content.add(OpenAiCodec.toolUse(c.id, c.name, c.args.toString()));
      } else {
        content.add(new JsonObject().put("type", "text").put("text", o.toString()));
      }
    }
    return content;
  }

  @Override
  public ModelResponse finish() {
    if (finishReason == null) {
      throw http.transportFailure(new VertxException(
          done ? "stream ended without a finish_reason" : "stream ended before [DONE]", true));
    }
    JsonObject raw = last == null ? new JsonObject() : last.copy();
    return new ModelResponse(id, model, content(), stopReason(), null, null, usage, requestId.get(), raw);
  }
}
