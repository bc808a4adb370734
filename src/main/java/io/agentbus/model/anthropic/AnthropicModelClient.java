package io.agentbus.model.anthropic;

import io.agentbus.model.ModelOptions;
import io.agentbus.model.ModelRequest;
import io.agentbus.model.ModelResponse;
import io.agentbus.model.ModelStreamEvent;
import io.agentbus.model.Provider;
import io.agentbus.model.impl.BaseModelClient;
import io.agentbus.model.impl.StreamAssembler;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.function.Supplier;

/**
 * {@link io.agentbus.model.ModelClient} of the Anthropic Messages API: {@code POST
 * {baseUrl}/v1/messages} with {@code x-api-key} and {@code anthropic-version}. Obtain it through
 * {@link io.agentbus.model.ModelClient#create}.
 */
public final class AnthropicModelClient extends BaseModelClient {

  /**
   * @param vertx the Vert.x instance
   * @param options the options
   */
  public AnthropicModelClient(Vertx vertx, ModelOptions options) {
    super(vertx, options, "/v1/messages", authHeaders(options));
  }

  @Override
  public Provider provider() {
    return Provider.ANTHROPIC;
  }

  @Override
  protected JsonObject body(ModelRequest request, boolean stream) {
    return AnthropicCodec.requestBody(request, options.getModel(), stream, options.isPromptCaching());
  }

  @Override
  protected ModelResponse response(JsonObject body, String requestId) {
    return AnthropicCodec.response(body, requestId);
  }

  @Override
  protected StreamAssembler assembler(Handler<ModelStreamEvent> handler, Supplier<String> requestId) {
    return new AnthropicStreamAssembler(http, handler, requestId);
  }

  private static MultiMap authHeaders(ModelOptions options) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap().set("anthropic-version", options.getAnthropicVersion());
    if (options.getApiKey() != null) {
      h.set("x-api-key", options.getApiKey());
    }
    return h;
  }
}
