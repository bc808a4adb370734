package io.agentbus.mock;

import io.vertx.core.json.JsonObject;

/**
 * An error the mock answers with, rendered in the real body shape of each API.
 *
 * @param status the HTTP status
 * @param type the error type ({@code invalid_request_error}, {@code authentication_error}, ...)
 * @param message the message
 * @param param the OpenAI {@code param}, or null
 * @param code the OpenAI {@code code}, or null
 */
public record ApiError(int status, String type, String message, String param, String code) {

  static ApiError invalid(String message) {
    return new ApiError(400, "invalid_request_error", message, null, null);
  }

  static ApiError invalid(String message, String param, String code) {
    return new ApiError(400, "invalid_request_error", message, param, code);
  }

  /**
   * @param requestId the request id
   * @return {@code {"type":"error","error":{"type","message"},"request_id"}}
   */
  public JsonObject anthropicBody(String requestId) {
    return new JsonObject().put("type", "error")
        .put("error", new JsonObject().put("type", type).put("message", message))
        .put("request_id", requestId);
  }

  /**
   * @return {@code {"error":{"message","type","param","code"}}}
   */
  public JsonObject openAiBody() {
    return new JsonObject().put("error", new JsonObject().put("message", message).put("type", type)
        .put("param", param).put("code", code));
  }
}
