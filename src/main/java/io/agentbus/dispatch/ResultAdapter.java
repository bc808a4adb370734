package io.agentbus.dispatch;

import io.agentbus.catalog.CatalogEntry;
import io.agentbus.model.Provider;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns an MCP {@code CallToolResult} into the content of a canonical (Anthropic-shaped)
 * {@code tool_result} block:
 * <ul>
 *   <li>text stays text; an embedded text resource becomes text headed by its uri;</li>
 *   <li>an image becomes a base64 image block for Anthropic when it is jpeg, png, gif or
 *   webp and not larger than the image cap; otherwise, and always for OpenAI (tool messages
 *   carry no images), it is described in text;</li>
 *   <li>audio, resource links, blob resources and unknown blocks are described in text;</li>
 *   <li>{@code structuredContent} becomes JSON text when no text block is present, and is
 *   checked against the tool's {@code outputSchema} (a mismatch is logged and noted);</li>
 *   <li>text beyond the size cap is cut in the middle, keeping head and tail with a marker
 *   saying how much was cut (the text blocks are then merged into one).</li>
 * </ul>
 * Stateless; safe to share.
 */
public final class ResultAdapter {

  private static final Logger log = LoggerFactory.getLogger(ResultAdapter.class);
  private static final Set<String> ANTHROPIC_IMAGES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp");

  private final int maxChars;
  private final int maxImageBytes;

  /**
   * @param maxChars text characters kept per result
   * @param maxImageBytes largest image (decoded bytes) passed on as an image block
   */
  public ResultAdapter(int maxChars, int maxImageBytes) {
    this.maxChars = maxChars;
    this.maxImageBytes = maxImageBytes;
  }

  /**
   * @param result the MCP {@code CallToolResult}
   * @param entry the tool (for its outputSchema), or {@code null}
   * @param provider who will read the result
   * @return the tool_result content blocks (never empty)
   */
  public JsonArray adapt(JsonObject result, CatalogEntry entry, Provider provider) {
    List<JsonObject> blocks = new ArrayList<>();
    boolean hasText = false;
    JsonArray content = result.getValue("content") instanceof JsonArray c ? c : new JsonArray();
    for (Object o : content) {
      if (!(o instanceof JsonObject block)) {
        continue;
      }
      JsonObject adapted = adaptBlock(block, provider);
      hasText |= "text".equals(block.getString("type"));
      blocks.add(adapted);
    }
    Object structured = result.getValue("structuredContent");
    if (structured != null && !hasText) {
      blocks.add(text(structured instanceof JsonObject o ? o.encode() : String.valueOf(structured)));
    }
    boolean isError = Boolean.TRUE.equals(result.getValue("isError"));
    if (entry != null && entry.output() != null && !isError) {
      String note = checkOutput(structured, entry);
      if (note != null) {
        blocks.add(text(note));
      }
    }
    if (blocks.isEmpty()) {
      blocks.add(text("(the tool returned no content)"));
    }
    return cap(blocks);
  }

  private String checkOutput(Object structured, CatalogEntry entry) {
    if (structured == null) {
      log.warn("tool {}: result has no structuredContent although the tool declares an outputSchema", entry.name());
      return "Note: the tool declares an outputSchema but returned no structuredContent.";
    }
    List<String> violations = entry.output().violations(structured);
    if (violations.isEmpty()) {
      return null;
    }
    log.warn("tool {}: structuredContent does not match its outputSchema: {}", entry.name(), violations);
    return "Note: the structured result does not match the tool's outputSchema:\n- " + String.join("\n- ", violations);
  }

  private JsonObject adaptBlock(JsonObject block, Provider provider) {
    String type = String.valueOf(block.getValue("type"));
    switch (type) {
      case "text":
        return text(block.getValue("text") instanceof String s ? s : "");
      case "image": {
        String mime = block.getString("mimeType", "?");
        String data = block.getValue("data") instanceof String d ? d : "";
        long bytes = decodedSize(data);
        if (provider == Provider.ANTHROPIC && ANTHROPIC_IMAGES.contains(mime) && bytes <= maxImageBytes && !data.isEmpty()) {
          return new JsonObject().put("type", "image").put("source", new JsonObject()
            .put("type", "base64").put("media_type", mime).put("data", data));
        }
        String why = provider == Provider.OPENAI ? "tool results cannot carry images here"
          : bytes > maxImageBytes ? "larger than " + maxImageBytes + " bytes" : "unsupported image type";
        return text("[image " + mime + ", " + bytes + " bytes, not shown: " + why + "]");
      }
      case "audio":
        return text("[audio " + block.getString("mimeType", "?") + ", "
          + decodedSize(block.getValue("data") instanceof String d ? d : "") + " bytes, not shown]");
      case "resource_link":
        return text(describeLink(block));
      case "resource": {
        JsonObject res = block.getValue("resource") instanceof JsonObject r ? r : new JsonObject();
        String uri = res.getString("uri", "?");
        if (res.getValue("text") instanceof String t) {
          return text("[resource " + uri + "]\n" + t);
        }
        String blob = res.getValue("blob") instanceof String b ? b : "";
        return text("[binary resource " + uri + ", " + res.getString("mimeType", "application/octet-stream")
          + ", " + decodedSize(blob) + " bytes, not shown]");
      }
      default:
        return text("[unsupported content block of type '" + type + "' omitted]");
    }
  }

  private static String describeLink(JsonObject link) {
    StringBuilder sb = new StringBuilder("[resource link: ");
    sb.append(link.getString("name", link.getString("uri", "?")));
    sb.append(" <").append(link.getString("uri", "?")).append('>');
    if (link.getValue("mimeType") instanceof String m) {
      sb.append(", ").append(m);
    }
    if (link.getValue("size") instanceof Number n) {
      sb.append(", ").append(n).append(" bytes");
    }
    if (link.getValue("description") instanceof String d && !d.isBlank()) {
      sb.append(": ").append(d);
    }
    return sb.append(']').toString();
  }

  private static long decodedSize(String base64) {
    int len = base64.length();
    int pad = len > 0 && base64.charAt(len - 1) == '=' ? (len > 1 && base64.charAt(len - 2) == '=' ? 2 : 1) : 0;
    return Math.max(0, (long) len * 3 / 4 - pad);
  }

  private JsonArray cap(List<JsonObject> blocks) {
    long total = 0;
    for (JsonObject b : blocks) {
      if ("text".equals(b.getString("type"))) {
        total += b.getString("text").length();
      }
    }
    JsonArray out = new JsonArray();
    if (total <= maxChars) {
      blocks.forEach(out::add);
      return out;
    }
    StringBuilder all = new StringBuilder();
    int firstText = -1;
    for (int i = 0; i < blocks.size(); i++) {
      if ("text".equals(blocks.get(i).getString("type"))) {
        if (firstText < 0) {
          firstText = i;
        } else {
          all.append('\n');
        }
        all.append(blocks.get(i).getString("text"));
      }
    }
    for (int i = 0; i < blocks.size(); i++) {
      if (i == firstText) {
        out.add(text(truncate(all.toString(), maxChars)));
      } else if (!"text".equals(blocks.get(i).getString("type"))) {
        out.add(blocks.get(i));
      }
    }
    return out;
  }

  /** @return {@code s} cut to about {@code max} characters: head, a marker, tail */
  static String truncate(String s, int max) {
    if (s.length() <= max) {
      return s;
    }
    int head = max / 2;
    int tail = max - head;
    int cut = s.length() - head - tail;
    return s.substring(0, head) + "\n\n[... " + cut + " of " + s.length() + " characters cut ...]\n\n"
      + s.substring(s.length() - tail);
  }

  static JsonObject text(String text) {
    return new JsonObject().put("type", "text").put("text", text);
  }
}
