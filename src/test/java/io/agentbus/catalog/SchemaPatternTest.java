package io.agentbus.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Patterns from untrusted schemas: enforced, but never at the cost of an event loop. */
@Timeout(60)
class SchemaPatternTest {

  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  private static SchemaCheck stringArg(String pattern) {
    return SchemaCheck.compile("t", new JsonObject().put("type", "object")
      .put("properties", new JsonObject().put("s", new JsonObject().put("type", "string").put("pattern", pattern))));
  }

  @Test
  void patternsAreStillEnforcedWhereTheyApply() {
    SchemaCheck check = SchemaCheck.compile("t", new JsonObject("""
      {"type":"object","$defs":{"code":{"type":"string","pattern":"^[A-Z]{3}$"}},
       "properties":{"code":{"$ref":"#/$defs/code"},
                     "tags":{"type":"array","items":{"type":"string","pattern":"^#"}},
                     "all":{"allOf":[{"type":"string"},{"pattern":"x"}]},
                     "free":{"type":"object","additionalProperties":{"type":"string","pattern":"^ok$"}}}}"""));
    assertEquals(List.of(), check.violations(new JsonObject().put("code", "ABC").put("tags", new JsonArray().add("#a"))
      .put("all", "axe").put("free", new JsonObject().put("k", "ok"))));
    List<String> bad = check.violations(new JsonObject().put("code", "abc").put("tags", new JsonArray().add("#a").add("b"))
      .put("all", "abc").put("free", new JsonObject().put("k", "no")));
    assertEquals(List.of("/code: does not match the pattern ^[A-Z]{3}$", "/tags/1: does not match the pattern ^#",
      "/all: does not match the pattern x", "/free/k: does not match the pattern ^ok$"), bad);
  }

  @Test
  void otherKeywordsAreCheckedAsBefore() {
    SchemaCheck check = stringArg("^a");
    List<String> wrongType = check.violations(new JsonObject().put("s", 5));
    assertEquals(1, wrongType.size(), wrongType::toString);
    assertTrue(wrongType.get(0).startsWith("/s: "), wrongType::toString);
  }

  @Test
  void catastrophicBacktrackingIsStoppedAndNamed() {
    SchemaCheck check = stringArg("^(.*a){12}$");
    String arg = "a".repeat(34) + "b";
    List<String> violations = check.violations(new JsonObject().put("s", arg));
    assertEquals(1, violations.size(), violations::toString);
    assertTrue(violations.get(0).contains("takes too long to check"), violations::toString);
  }

  @Test
  void aDeepRecursionInTheMatcherBecomesAViolation() {
    SchemaCheck check = stringArg("^(a|b)*$");
    List<String> violations = check.violations(new JsonObject().put("s", "ab".repeat(200_000)));
    assertEquals(1, violations.size(), violations::toString);
    assertTrue(violations.get(0).contains("too deep a recursion"), violations::toString);
  }

  @Test
  void aDeeplyNestedInstanceBecomesAViolation() {
    SchemaCheck check = SchemaCheck.compile("t", new JsonObject("""
      {"$defs":{"n":{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}"""));
    JsonObject deep = new JsonObject();
    JsonObject at = deep;
    for (int i = 0; i < 100_000; i++) {
      JsonObject next = new JsonObject();
      at.put("n", next);
      at = next;
    }
    List<String> violations = check.violations(deep);
    assertEquals(List.of("(root): the arguments are nested too deeply to check"), violations);
  }

  @Test
  void onAnEventLoopASlowCheckMovesToAWorkerThread() throws Exception {
    SchemaCheck check = stringArg("^(.*a){12}$");
    JsonObject args = new JsonObject().put("s", "a".repeat(34) + "b");
    Promise<Boolean> completedInline = Promise.promise();
    Promise<List<String>> result = Promise.promise();
    vertx.runOnContext(v -> {
      Future<List<String>> f = check.check(vertx, args);
      completedInline.complete(f.isComplete());
      f.onComplete(result);
    });
    assertFalse(completedInline.future().await(10, TimeUnit.SECONDS), "the slow check ran to its end on the event loop");
    List<String> violations = result.future().await(10, TimeUnit.SECONDS);
    assertEquals(1, violations.size(), violations::toString);
    assertTrue(violations.get(0).contains("takes too long to check"), violations::toString);
  }

  @Test
  void aFastCheckStaysOnTheEventLoop() throws Exception {
    SchemaCheck check = stringArg("^[a-z]+$");
    Promise<List<String>> inline = Promise.promise();
    vertx.runOnContext(v -> {
      Future<List<String>> f = check.check(vertx, new JsonObject().put("s", "OK"));
      if (f.isComplete()) {
        inline.complete(f.result());
      } else {
        inline.fail("a fast check left the event loop");
      }
    });
    assertEquals(List.of("/s: does not match the pattern ^[a-z]+$"), inline.future().await(10, TimeUnit.SECONDS));
  }

  @Test
  void patternPropertiesAreLeftToTheServerAndDoNotRejectTheirProperties() {
    SchemaCheck check = SchemaCheck.compile("t", new JsonObject("""
      {"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}"""));
    assertEquals(List.of(), check.violations(new JsonObject().put("x-a", "v")));
  }

  @Test
  void aPropertyNamedPatternIsNotAKeyword() {
    SchemaCheck check = SchemaCheck.compile("t", new JsonObject("""
      {"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}"""));
    assertEquals(List.of(), check.violations(new JsonObject().put("pattern", "(")));
    assertEquals(1, check.violations(new JsonObject()).size());
  }
}
