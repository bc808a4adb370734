package io.agentbus.http;

import io.agentbus.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.util.List;
import java.util.function.Predicate;

/** The HTTP calls and mock-model scripts of the server-request tests. */
final class ServerRequestsApi {

  final WebClient web;
  final int port;

  ServerRequestsApi(WebClient web, int port) {
    this.web = web;
    this.port = port;
  }

  static JsonObject toolUse(String name, JsonObject input) {
    return new JsonObject().put("type", "tool_use").put("name", name).put("input", input);
  }

  static JsonObject script(String match, JsonObject... replies) {
    return new JsonObject().put("match", match).put("replies", new JsonArray(List.of((Object[]) replies)));
  }

  static JsonObject uses(JsonObject... blocks) {
    return new JsonObject().put("content", new JsonArray(List.of((Object[]) blocks)));
  }

  static JsonObject text(String text) {
    return new JsonObject().put("text", text);
  }

  static Predicate<JsonObject> type(String type) {
    return e -> type.equals(e.getString("type"));
  }

  Future<HttpResponse<Buffer>> post(String path, String token, JsonObject body) {
    return web.request(HttpMethod.POST, port, "127.0.0.1", path).bearerTokenAuthentication(token).sendJsonObject(body);
  }

  Future<String> create(String token, JsonObject body) {
    return post("/v1/conversations", token, body).map(r -> r.bodyAsJsonObject().getString("id"));
  }

  /** Runs a JSON turn; fails unless it answers 200. */
  Future<JsonObject> send(String id, String token, String content) {
    return post("/v1/conversations/" + id + "/messages", token, new JsonObject().put("content", content))
      .map(r -> {
        if (r.statusCode() != 200) {
          throw new AssertionError("turn failed: " + r.statusCode() + " " + r.bodyAsString());
        }
        return r.bodyAsJsonObject();
      });
  }

  Future<HttpResponse<Buffer>> answer(String id, String elicitationId, String token, JsonObject body) {
    return post("/v1/conversations/" + id + "/elicitations/" + elicitationId, token, body);
  }

  /** @return the conversation's open elicitations as the token's tenant sees them */
  Future<JsonArray> openElicitations(String id, String token) {
    return web.request(HttpMethod.GET, port, "127.0.0.1", "/v1/conversations/" + id + "/elicitations").bearerTokenAuthentication(token)
      .send().map(r -> {
        if (r.statusCode() != 200) {
          throw new AssertionError(r.statusCode() + " " + r.bodyAsString());
        }
        return r.bodyAsJsonObject().getJsonArray("elicitations");
      });
  }

  /** Subscribes to the conversation's events; completes once subscribed, with the first matching event. */
  static Future<Future<JsonObject>> awaitEvent(Vertx vertx, String id, Predicate<JsonObject> match) {
    Promise<JsonObject> seen = Promise.promise();
    var consumer = vertx.eventBus().<JsonObject>consumer(Addresses.conversationEvents(id));
    consumer.handler(m -> {
      if (match.test(m.body())) {
        seen.tryComplete(m.body());
      }
    });
    return consumer.completion().map(v -> seen.future());
  }

  /** @return every tool_result block of the conversation's history, encoded, in order */
  Future<List<String>> toolResults(String id, String token) {
    return web.request(HttpMethod.GET, port, "127.0.0.1", "/v1/conversations/" + id).bearerTokenAuthentication(token)
      .send().map(r -> r.bodyAsJsonObject().getJsonArray("messages").stream()
        .filter(m -> ((JsonObject) m).getValue("content") instanceof JsonArray)
        .flatMap(m -> ((JsonObject) m).getJsonArray("content").stream())
        .map(JsonObject.class::cast)
        .filter(b -> "tool_result".equals(b.getString("type")))
        .map(JsonObject::encode)
        .toList());
  }

  /** @return the last tool_result of the conversation's history, encoded, or {@code null} */
  Future<String> lastToolResult(String id, String token) {
    return toolResults(id, token).map(all -> all.isEmpty() ? null : all.get(all.size() - 1));
  }
}
