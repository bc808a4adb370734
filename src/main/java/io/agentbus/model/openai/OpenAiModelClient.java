package io.agentbus.model.openai;

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
 * {@link io.agentbus.model.ModelClient} of the OpenAI Chat Completions API: {@code POST
 * {baseUrl}/chat/completions} with {@code Authorization: Bearer}, the base URL including
 * {@code /v1} as in the SDK ({@code OPENAI_BASE_URL}). Maps to and from the canonical format with
 * {@link OpenAiCodec}. Obtain it through {@link io.agentbus.model.ModelClient#create}.
 */
public final class OpenAiModelClient extends BaseModelClient {

  /**
   * @param vertx the Vert.x instance
   * @param options the options
   */
  public OpenAiModelClient(Vertx vertx, ModelOptions options) {
    super(vertx, options, "/chat/completions", authHeaders(options));
  }

  @Override
  public Provider provider() {
    return Provider.OPENAI;
  }

  @Override
  protected JsonObject body(ModelRequest request, boolean stream) {
    return OpenAiCodec.requestBody(request, options.getModel(), stream);
  }

  @Override
  protected ModelResponse response(JsonObject body, String requestId) {
    return OpenAiCodec.response(body, requestId);
  }

  @Override
  protected StreamAssembler assembler(Handler<ModelStreamEvent> handler, Supplier<String> requestId) {
    return new OpenAiStreamAssembler(http, handler, requestId);
  }

  private static MultiMap authHeaders(ModelOptions options) {
    MultiMap h = MultiMap.caseInsensitiveMultiMap();
    if (options.getApiKey() != null) {
      h.set("authorization", "Bearer " + options.getApiKey());
    }
    return h;
  }
}
