package io.agentbus.catalog;

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
 */
public final class SchemaCheck {

  private static final Logger log = LoggerFactory.getLogger(SchemaCheck.class);
  /** At most this many violations are listed; the rest are counted. */
  public static final int MAX_LISTED = 10;

  private final String label;
  private final Validator validator;
  private final String problem;
  private final AtomicBoolean brokenLogged = new AtomicBoolean();
  private volatile String runtimeProblem;

  private SchemaCheck(String label, Validator validator, String problem) {
    this.label = label;
    this.validator = validator;
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
      return new SchemaCheck(label, null, "no schema");
    }
    try {
      Draft draft = draftOf(schema.getValue("$schema"));
      // JsonSchema.of annotates the object it wraps: give it a private copy.
      Validator validator = Validator.create(JsonSchema.of(schema.copy()), new JsonSchemaOptions()
        .setDraft(draft)
        .setBaseUri("urn:agentbus:schema")
        .setOutputFormat(OutputFormat.Basic));
      // Surfaces most compile problems (unresolvable $ref at the root, bad keywords) now.
      validator.validate(new JsonObject());
      return new SchemaCheck(label, validator, null);
    } catch (RuntimeException e) {
      log.warn("{}: the schema cannot be compiled, arguments are not checked before calls: {}", label, e.getMessage());
      return new SchemaCheck(label, null, String.valueOf(e.getMessage()));
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
   * Validates an instance.
   *
   * @return the violations ({@code "<where>: <what>"}), empty when valid or when the schema
   *     cannot check
   */
  public List<String> violations(Object instance) {
    if (!usable()) {
      return List.of();
    }
    OutputUnit out;
    try {
      out = validator.validate(instance);
    } catch (RuntimeException e) {
      runtimeProblem = String.valueOf(e.getMessage());
      if (brokenLogged.compareAndSet(false, true)) {
        log.warn("{}: the schema failed while validating and is no longer used: {}", label, e.getMessage());
      }
      return List.of();
    }
    if (Boolean.TRUE.equals(out.getValid())) {
      return List.of();
    }
    return describe(out);
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
