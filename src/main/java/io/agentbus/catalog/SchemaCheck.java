package io.agentbus.catalog;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A compiled JSON Schema (vertx-json-schema) that lists violations in words a model can act
 * on. The dialect comes from {@code $schema} (draft-04, -06/-07, 2019-09, 2020-12); without
 * one it is 2020-12, the MCP default. A schema that cannot be compiled, or that fails while
 * validating (an unresolvable {@code $ref}), is logged once and then checks nothing: the
 * tool stays callable and the server validates. Immutable after construction and safe to
 * share between event loops.
 *
 * <p>Schemas come from untrusted servers and instances from a model a prompt can steer, so
 * checking is bounded: {@code pattern} keywords are matched by {@link PatternRules} under a
 * deadline instead of by the validator, and any {@link Throwable} while checking (a stack
 * overflow on a deeply nested instance) becomes a violation naming the reason.
 * {@link #check(Vertx, Object)} keeps an event loop's share to {@link #LOOP_BUDGET_MS} and
 * finishes a slow check on a worker thread, within {@link #WORKER_BUDGET_MS}.
 */
public final class SchemaCheck {

  private static final Logger log = LoggerFactory.getLogger(SchemaCheck.class);
  /** At most this many violations are listed; the rest are counted. */
  public static final int MAX_LISTED = 10;
  /** Time a check may take on an event loop before it moves to a worker thread. */
  public static final long LOOP_BUDGET_MS = 2;
  /** Time a check may take in all; beyond it the instance counts as not valid. */
  public static final long WORKER_BUDGET_MS = 500;

  private final String label;
  private final Validator validator;
  private final PatternRules patterns;
  private final String problem;
  private final AtomicBoolean brokenLogged = new AtomicBoolean();
  private volatile String runtimeProblem;

  private SchemaCheck(String label, Validator validator, PatternRules patterns, String problem) {
    this.label = label;
    this.validator = validator;
    this.patterns = patterns;
    this.problem = problem;
  }

  /**
   * Compiles a schema.
   *
   * @param label names the schema in logs, e.g. {@code "everything/echo inputSchema"}
   * @param schema the schema as the server sent it (not modified)
   */
  public static SchemaCheck compile(String label, JsonObject schema) {
    if (schema == null) {
      return new SchemaCheck(label, null, null, "no schema");
    }
    try {
      Draft draft = draftOf(schema.getValue("$schema"));
      // JsonSchema.of annotates the object it wraps: give it a private copy, without the
      // patterns that PatternRules checks under a deadline.
      JsonObject compiled = schema.copy();
      PatternRules.strip(compiled);
      PatternRules patterns = PatternRules.of(schema);
      Validator validator = Validator.create(JsonSchema.of(compiled), new JsonSchemaOptions()
        .setDraft(draft)
        .setBaseUri("urn:agentbus:schema")
        .setOutputFormat(OutputFormat.Basic));
      // Surfaces most compile problems (unresolvable $ref at the root, bad keywords) now.
      validator.validate(new JsonObject());
      return new SchemaCheck(label, validator, patterns.isEmpty() ? null : patterns, null);
    } catch (RuntimeException | StackOverflowError e) {
      log.warn("{}: the schema cannot be compiled, arguments are not checked before calls: {}", label, e.getMessage());
      return new SchemaCheck(label, null, null, String.valueOf(e.getMessage()));
    }
  }

  static Draft draftOf(Object declared) {
    if (declared == null) {
      return Draft.DRAFT202012;
    }
    String id = String.valueOf(declared);
    if (id.contains("2020-12")) {
      return Draft.DRAFT202012;
    }
    if (id.contains("2019-09")) {
      return Draft.DRAFT201909;
    }
    if (id.contains("draft-07") || id.contains("draft-06")) {
      return Draft.DRAFT7;
    }
    if (id.contains("draft-04")) {
      return Draft.DRAFT4;
    }
    throw new IllegalArgumentException("unsupported JSON Schema dialect " + id);
  }

  /** @return whether this schema checks anything */
  public boolean usable() {
    return validator != null && runtimeProblem == null;
  }

  /** @return why the schema checks nothing, or {@code null} when it is usable */
  public String problem() {
    return problem != null ? problem : runtimeProblem;
  }

  /**
   * Validates an instance on the calling thread, within {@link #WORKER_BUDGET_MS}.
   *
   * @return the violations ({@code "<where>: <what>"}), empty when valid or when the schema
   *     cannot check
   */
  public List<String> violations(Object instance) {
    return violations(instance, WORKER_BUDGET_MS);
  }

  /**
   * Validates an instance without holding an event loop for more than {@link #LOOP_BUDGET_MS}:
   * a check that needs longer is finished on a worker thread.
   *
   * @return the violations, as {@link #violations(Object)}; never a failed future
   */
  public Future<List<String>> check(Vertx vertx, Object instance) {
    if (!usable()) {
      return Future.succeededFuture(List.of());
    }
    try {
      return Future.succeededFuture(bounded(instance, LOOP_BUDGET_MS));
    } catch (BoundedMatch.BudgetExceeded slow) {
      return vertx.executeBlocking(() -> violations(instance, WORKER_BUDGET_MS), false)
        .recover(err -> Future.succeededFuture(List.of("(root): the arguments could not be checked: " + err)));
    }
  }

  private List<String> violations(Object instance, long budgetMs) {
    if (!usable()) {
      return List.of();
    }
    try {
      return bounded(instance, budgetMs);
    } catch (BoundedMatch.BudgetExceeded e) {
      return List.of("(root): the tool's schema takes too long to check these arguments (" + e.getMessage()
        + " within " + budgetMs + " ms)");
    }
  }

  /** @throws BoundedMatch.BudgetExceeded when a pattern match did not finish within the budget */
  private List<String> bounded(Object instance, long budgetMs) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMs);
    OutputUnit out;
    try {
      out = validator.validate(instance);
    } catch (StackOverflowError e) {
      return List.of("(root): the arguments are nested too deeply to check");
    } catch (RuntimeException e) {
      runtimeProblem = String.valueOf(e.getMessage());
      if (brokenLogged.compareAndSet(false, true)) {
        log.warn("{}: the schema failed while validating and is no longer used: {}", label, e.getMessage());
      }
      return List.of();
    }
    List<String> found = Boolean.TRUE.equals(out.getValid()) ? new ArrayList<>() : new ArrayList<>(describe(out));
    if (patterns != null) {
      List<PatternRules.Violation> mismatches = new ArrayList<>();
      try {
        patterns.check(instance, "", deadline, mismatches);
      } catch (StackOverflowError e) {
        return List.of("(root): the arguments are nested too deeply to check");
      }
      for (PatternRules.Violation v : mismatches) {
        if (found.size() >= MAX_LISTED) {
          break;
        }
        found.add((v.location().isEmpty() ? "(root)" : v.location()) + ": " + v.message());
      }
    }
    return found;
  }

  private static List<String> describe(OutputUnit out) {
    List<OutputUnit> errors = out.getErrors() != null ? out.getErrors() : List.of(out);
    Set<String> lines = new LinkedHashSet<>();
    Set<String> leafLocations = new LinkedHashSet<>();
    for (OutputUnit e : errors) {
      if (!isWrapper(e) && !isAdditional(e)) {
        leafLocations.add(e.getInstanceLocation());
      }
    }
    for (OutputUnit e : errors) {
      // "Property x does not match schema" only wraps the precise error below it, and
      // draft-07 additionalProperties re-reports declared properties that failed: skip both.
      if (isWrapper(e) || (isAdditional(e) && leafLocations.contains(e.getInstanceLocation()))) {
        continue;
      }
      String where = e.getInstanceLocation() == null || "#".equals(e.getInstanceLocation())
        ? "(root)" : e.getInstanceLocation().replaceFirst("^#", "");
      lines.add(where + ": " + e.getError());
    }
    if (lines.isEmpty() && out.getError() != null) {
      lines.add("(root): " + out.getError());
    }
    List<String> listed = new ArrayList<>(lines);
    if (listed.size() > MAX_LISTED) {
      int more = listed.size() - MAX_LISTED;
      listed = new ArrayList<>(listed.subList(0, MAX_LISTED));
      listed.add("... and " + more + " more");
    }
    return listed;
  }

  private static boolean isWrapper(OutputUnit e) {
    String kw = e.getKeywordLocation();
    return kw != null && (kw.endsWith("/properties") || kw.endsWith("/items") || kw.endsWith("/prefixItems"))
      && e.getError() != null && e.getError().contains("does not match");
  }

  private static boolean isAdditional(OutputUnit e) {
    String kw = e.getKeywordLocation();
    return kw != null && kw.endsWith("/additionalProperties");
  }
}
