package io.agentbus.dispatch;

import io.agentbus.model.Provider;
import io.agentbus.testing.Integration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.catalog.CatalogEntry;
import io.agentbus.catalog.CatalogSnapshot;
import io.agentbus.mcp.McpClient;
import io.agentbus.testing.InteropServers;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Result adaptation, on results of the real server-everything and on scripted shapes. */
@Integration
@ExtendWith(VertxExtension.class)
class ResultAdapterTest {

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();
  private static final ResultAdapter ADAPTER = new ResultAdapter(100_000, 5 * 1024 * 1024);
  private static CatalogSnapshot catalog;
  private static JsonObject tinyImage;
  private static JsonObject links;
  private static JsonObject reference;
  private static JsonObject structured;

  @BeforeAll
  static void callRealTools(Vertx vertx, VertxTestContext ctx) {
    McpClient client = McpClient.create(vertx, InteropServers.everythingStdio("everything"));
    client.connect()
      .compose(init -> {
        catalog = CatalogSnapshot.build(1, Map.of("everything", client.tools()), null);
        return Future.all(
          client.callTool("get-tiny-image", new JsonObject(), null),
          client.callTool("get-resource-links", new JsonObject().put("count", 2), null),
          client.callTool("get-resource-reference", new JsonObject(), null),
          client.callTool("get-structured-content", new JsonObject().put("location", "Chicago"), null));
      })
      .onSuccess(all -> {
        tinyImage = all.resultAt(0);
        links = all.resultAt(1);
        reference = all.resultAt(2);
        structured = all.resultAt(3);
      })
      .eventually(client::close)
      .onComplete(ctx.succeedingThenComplete());
  }

  private static List<String> types(JsonArray blocks) {
    return blocks.stream().map(b -> ((JsonObject) b).getString("type")).toList();
  }

  private static String allText(JsonArray blocks) {
    StringBuilder sb = new StringBuilder();
    blocks.stream().map(b -> (JsonObject) b).filter(b -> "text".equals(b.getString("type")))
      .forEach(b -> sb.append(b.getString("text")).append('\n'));
    return sb.toString();
  }

  @Test
  void realPngBecomesAnAnthropicImageBlock() {
    JsonArray out = ADAPTER.adapt(tinyImage, null, Provider.ANTHROPIC);
    JsonObject image = out.stream().map(b -> (JsonObject) b).filter(b -> "image".equals(b.getString("type"))).findFirst().orElseThrow();
    JsonObject source = image.getJsonObject("source");
    assertEquals("base64", source.getString("type"));
    assertEquals("image/png", source.getString("media_type"));
    assertFalse(source.getString("data").isEmpty());
    assertTrue(types(out).contains("text"));
  }

  @Test
  void forOpenAiTheRealImageIsDescribedInText() {
    JsonArray out = ADAPTER.adapt(tinyImage, null, Provider.OPENAI);
    assertTrue(types(out).stream().allMatch("text"::equals), out::encode);
    assertTrue(allText(out).contains("[image image/png"), out::encode);
  }

  @Test
  void realResourceLinksAndEmbeddedResourcesBecomeText() {
    JsonArray linked = ADAPTER.adapt(links, null, Provider.ANTHROPIC);
    assertTrue(types(linked).stream().allMatch("text"::equals));
    assertTrue(allText(linked).contains("[resource link: "), linked::encode);
    JsonArray referenced = ADAPTER.adapt(reference, null, Provider.ANTHROPIC);
    assertTrue(types(referenced).stream().allMatch("text"::equals));
    assertTrue(allText(referenced).contains("[resource "), referenced::encode);
  }

  @Test
  void realStructuredContentMatchesItsOutputSchemaAndTheTextIsKept() {
    CatalogEntry entry = catalog.byName("mcp__everything__get-structured-content");
    JsonArray out = ADAPTER.adapt(structured, entry, Provider.ANTHROPIC);
    assertFalse(logs.contains("does not match its outputSchema"), logs.lines()::toString);
    assertFalse(allText(out).contains("does not match"), out::encode);
    assertEquals(structured.getJsonArray("content").size(), out.size(), "the text block is given, not the JSON twice");
  }

  @Test
  void structuredContentAloneBecomesJsonTextAndAMismatchIsNoted() {
    CatalogEntry entry = catalog.byName("mcp__everything__get-structured-content");
    JsonObject good = new JsonObject().put("content", new JsonArray())
      .put("structuredContent", new JsonObject().put("temperature", 1).put("conditions", "x").put("humidity", 2));
    JsonArray out = ADAPTER.adapt(good, entry, Provider.ANTHROPIC);
    assertEquals(1, out.size());
    assertEquals(good.getJsonObject("structuredContent"), new JsonObject(out.getJsonObject(0).getString("text")));
    JsonObject bad = new JsonObject().put("content", new JsonArray())
      .put("structuredContent", new JsonObject().put("temperature", "hot"));
    String text = allText(ADAPTER.adapt(bad, entry, Provider.ANTHROPIC));
    assertTrue(text.contains("does not match the tool's outputSchema"), text);
    assertTrue(logs.contains("structuredContent does not match its outputSchema"));
  }

  @Test
  void otherMediaIsDescribed() {
    JsonObject result = new JsonObject().put("content", new JsonArray()
      .add(new JsonObject().put("type", "image").put("mimeType", "image/svg+xml").put("data", "AAAA"))
      .add(new JsonObject().put("type", "audio").put("mimeType", "audio/wav").put("data", "AAAAAAAA"))
      .add(new JsonObject().put("type", "resource").put("resource", new JsonObject().put("uri", "mem://b").put("blob", "AAAA")))
      .add(new JsonObject().put("type", "something-new")));
    JsonArray out = ADAPTER.adapt(result, null, Provider.ANTHROPIC);
    assertEquals(List.of("text", "text", "text", "text"), types(out));
    String text = allText(out);
    assertTrue(text.contains("[image image/svg+xml, 3 bytes, not shown: unsupported image type]"), text);
    assertTrue(text.contains("[audio audio/wav, 6 bytes, not shown]"), text);
    assertTrue(text.contains("[binary resource mem://b"), text);
    assertTrue(text.contains("something-new"), text);
  }

  @Test
  void tooLargeImagesAreDescribed() {
    ResultAdapter small = new ResultAdapter(1000, 2);
    JsonObject result = new JsonObject().put("content", new JsonArray()
      .add(new JsonObject().put("type", "image").put("mimeType", "image/png").put("data", "AAAAAAAA")));
    assertTrue(allText(small.adapt(result, null, Provider.ANTHROPIC)).contains("larger than 2 bytes"));
  }

  @Test
  void bigTextKeepsHeadAndTailWithAMarker() {
    ResultAdapter capped = new ResultAdapter(1000, 100);
    JsonObject result = new JsonObject().put("content", new JsonArray()
      .add(new JsonObject().put("type", "text").put("text", "HEAD" + "x".repeat(5000)))
      .add(new JsonObject().put("type", "image").put("mimeType", "image/png").put("data", "AAAA"))
      .add(new JsonObject().put("type", "text").put("text", "y".repeat(5000) + "TAIL")));
    JsonArray out = capped.adapt(result, null, Provider.ANTHROPIC);
    assertEquals(List.of("text", "image"), types(out));
    String text = out.getJsonObject(0).getString("text");
    assertTrue(text.startsWith("HEAD") && text.endsWith("TAIL"), text);
    assertTrue(text.contains("[... 9009 of 10009 characters cut ...]"), text);
    assertTrue(text.length() < 1100);
  }

  @Test
  void emptyContentSaysSo() {
    JsonArray out = ADAPTER.adapt(new JsonObject().put("content", new JsonArray()), null, Provider.OPENAI);
    assertEquals("(the tool returned no content)", out.getJsonObject(0).getString("text"));
  }
}
