package io.agentbus.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.model.openai.OpenAiCodec;
import io.vertx.core.MultiMap;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pure unit tests: options, retry rules, usage and the OpenAI mapping. */
class ModelUnitTest {

  @Test
  void optionsFromEnvAndJsonNeverExposeTheKey() {
    ModelOptions o = ModelOptions.fromEnv(Map.of("AGENTBUS_MODEL_PROVIDER", "openai", "OPENAI_API_KEY", "sk-secret-1",
        "OPENAI_BASE_URL", "http://localhost:1234/v1/", "ANTHROPIC_API_KEY", "other"));
    assertEquals("openai", o.getProvider());
    assertEquals("sk-secret-1", o.getApiKey());
    assertEquals("http://localhost:1234/v1", o.effectiveBaseUrl());
    assertFalse(o.toString().contains("sk-secret-1"));
    assertFalse(o.toJson().encode().contains("sk-secret-1"));
    ModelOptions a = ModelOptions.fromEnv(Map.of("ANTHROPIC_API_KEY", "sk-ant-2"));
    assertEquals("anthropic", a.getProvider());
    assertEquals("https://api.anthropic.com", a.effectiveBaseUrl());
    assertEquals("https://api.openai.com/v1", new ModelOptions().setProvider("openai").effectiveBaseUrl());
    ModelOptions fromJson = new ModelOptions(new JsonObject().put("maxConnections", 16));
    assertEquals(16, fromJson.getMaxConnections());
    assertEquals(ModelOptions.DEFAULT_MAX_RETRIES, fromJson.getMaxRetries());
    assertEquals(new ModelOptions(fromJson).toJson(), fromJson.toJson());
    assertThrows(IllegalArgumentException.class, () -> new ModelOptions().setProvider("gemini"));
    assertThrows(IllegalArgumentException.class, () -> new ModelOptions().setMaxRetries(-1));
  }

  @Test
  void retryRulesFollowTheSdks() {
    MultiMap none = MultiMap.caseInsensitiveMultiMap();
    for (int s : new int[] {408, 409, 429, 500, 502, 529}) {
      assertTrue(RetryPolicy.shouldRetry(s, none), "status " + s);
    }
    for (int s : new int[] {400, 401, 403, 404, 413, 422}) {
      assertFalse(RetryPolicy.shouldRetry(s, none), "status " + s);
    }
    assertTrue(RetryPolicy.shouldRetry(400, MultiMap.caseInsensitiveMultiMap().set("x-should-retry", "true")));
    assertFalse(RetryPolicy.shouldRetry(503, MultiMap.caseInsensitiveMultiMap().set("x-should-retry", "false")));
  }

  @Test
  void retryAfterHeaders() {
    assertEquals(250, RetryPolicy.retryAfterMs(MultiMap.caseInsensitiveMultiMap().set("retry-after-ms", "250")
        .set("retry-after", "9")));
    assertEquals(2000, RetryPolicy.retryAfterMs(MultiMap.caseInsensitiveMultiMap().set("retry-after", "2")));
    String date = ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(30).format(DateTimeFormatter.RFC_1123_DATE_TIME);
    long fromDate = RetryPolicy.retryAfterMs(MultiMap.caseInsensitiveMultiMap().set("retry-after", date));
    assertTrue(fromDate > 25_000 && fromDate <= 30_000, "was " + fromDate);
    assertEquals(-1, RetryPolicy.retryAfterMs(MultiMap.caseInsensitiveMultiMap().set("retry-after", "soon")));
    assertEquals(-1, RetryPolicy.retryAfterMs(MultiMap.caseInsensitiveMultiMap()));
    assertEquals(1234, RetryPolicy.delayMs(0, 1234));
    long capped = RetryPolicy.delayMs(0, 120_000);
    assertTrue(capped >= 375 && capped <= 500, "unreasonable retry-after falls back to backoff, was " + capped);
  }

  @Test
  void backoffIsExponentialCappedAndJittered() {
    for (int i = 0; i < 2000; i++) {
      long first = RetryPolicy.backoffMs(0);
      assertTrue(first >= 375 && first <= 500, "was " + first);
      long second = RetryPolicy.backoffMs(1);
      assertTrue(second >= 750 && second <= 1000, "was " + second);
      long late = RetryPolicy.backoffMs(10);
      assertTrue(late >= 6000 && late <= 8000, "was " + late);
    }
  }

  @Test
  void usageAddsAndOverlays() {
    Usage a = new Usage(10, 5, 2, 3);
    assertEquals(new Usage(20, 10, 4, 6), a.plus(a));
    assertEquals(15, a.totalInputTokens());
    assertEquals(new Usage(10, 42, 2, 3), a.overlay(new JsonObject().put("output_tokens", 42)));
    assertEquals(a, Usage.fromJson(a.toJson()));
  }

  @Test
  void canonicalHistoryMapsToChatCompletions() {
    ModelRequest req = new ModelRequest().setModel("gpt-x").setSystem("sys").setMaxTokens(77)
        .setTools(new JsonArray().add(new JsonObject().put("name", "t").put("description", "d")
            .put("input_schema", new JsonObject().put("type", "object"))))
        .setToolChoice(new JsonObject().put("type", "any").put("disable_parallel_tool_use", true))
        .addMessage("user", "hi")
        .addMessage("assistant", new JsonArray()
            .add(new JsonObject().put("type", "thinking").put("thinking", "hmm").put("signature", "s"))
            .add(new JsonObject().put("type", "tool_use").put("id", "c1").put("name", "t").put("input", new JsonObject().put("a", 1)))
            .add(new JsonObject().put("type", "tool_use").put("id", "c2").put("name", "t").put("input", new JsonObject())
                .put(OpenAiCodec.INVALID_ARGUMENTS, "{oops")))
        .addMessage("user", new JsonArray()
            .add(new JsonObject().put("type", "tool_result").put("tool_use_id", "c1").put("content", "one"))
            .add(new JsonObject().put("type", "tool_result").put("tool_use_id", "c2").put("is_error", true).put("content", "bad args"))
            .add(new JsonObject().put("type", "text").put("text", "and?")));
    JsonObject body = OpenAiCodec.requestBody(req, null, true);
    JsonArray m = body.getJsonArray("messages");
    assertEquals(new JsonObject().put("role", "system").put("content", "sys"), m.getJsonObject(0));
    assertEquals(new JsonObject().put("role", "user").put("content", "hi"), m.getJsonObject(1));
    JsonObject assistant = m.getJsonObject(2);
    assertNull(assistant.getValue("content"));
    JsonArray calls = assistant.getJsonArray("tool_calls");
    assertEquals("{\"a\":1}", calls.getJsonObject(0).getJsonObject("function").getString("arguments"));
    assertEquals("{oops", calls.getJsonObject(1).getJsonObject("function").getString("arguments"));
    assertEquals(new JsonObject().put("role", "tool").put("tool_call_id", "c1").put("content", "one"), m.getJsonObject(3));
    assertEquals("Error: bad args", m.getJsonObject(4).getString("content"));
    assertEquals(new JsonObject().put("role", "user").put("content", "and?"), m.getJsonObject(5));
    assertEquals(6, m.size());
    assertEquals("required", body.getString("tool_choice"));
    assertFalse(body.getBoolean("parallel_tool_calls"));
    assertEquals(77, body.getInteger("max_completion_tokens"));
    assertTrue(body.getJsonObject("stream_options").getBoolean("include_usage"));
    JsonObject fn = body.getJsonArray("tools").getJsonObject(0);
    assertEquals("function", fn.getString("type"));
    assertEquals("object", fn.getJsonObject("function").getJsonObject("parameters").getString("type"));
  }

  @Test
  void finishReasonsMapToStopReasons() {
    assertEquals("tool_use", OpenAiCodec.stopReason("stop", true, false));
    assertEquals("end_turn", OpenAiCodec.stopReason("stop", false, false));
    assertEquals("end_turn", OpenAiCodec.stopReason("tool_calls", false, false));
    assertEquals("max_tokens", OpenAiCodec.stopReason("length", false, false));
    assertEquals("refusal", OpenAiCodec.stopReason("content_filter", false, false));
    assertEquals("something_new", OpenAiCodec.stopReason("something_new", false, false));
    JsonObject body = new JsonObject().put("id", "x").put("choices", new JsonArray().add(new JsonObject()
        .put("finish_reason", "length").put("message", new JsonObject().put("content", "partial"))))
        .put("usage", new JsonObject().put("prompt_tokens", 100).put("completion_tokens", 7)
            .put("prompt_tokens_details", new JsonObject().put("cached_tokens", 40)));
    ModelResponse r = OpenAiCodec.response(body, "rid");
    assertEquals("max_tokens", r.stopReason());
    assertEquals(new Usage(60, 7, 0, 40), r.usage());
    assertEquals("partial", r.text());
  }

  @Test
  void exceptionMessageCarriesTheDetails() {
    ModelException e = new ModelException(ModelException.Kind.RATE_LIMITED, 429, "rate_limit_error", "slow down", "req_1",
        true, 1000, null);
    assertEquals("RATE_LIMITED (HTTP 429) rate_limit_error: slow down [request-id req_1]", e.getMessage());
    assertTrue(e.withAttempts(3).getMessage().endsWith("(gave up after 3 attempts)"));
    assertFalse(e.withRetryable(false).retryable());
  }
}
