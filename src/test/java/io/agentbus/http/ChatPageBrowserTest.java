package io.agentbus.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.Agentbus;
import io.agentbus.AgentbusOptions;
import io.agentbus.conversation.ConversationOptions;
import io.agentbus.demo.DemoMcpServer;
import io.agentbus.mock.MockModelOptions;
import io.agentbus.mock.MockModelServer;
import io.agentbus.model.ModelOptions;
import io.agentbus.store.StoreOptions;
import io.agentbus.testing.Chromium;
import io.agentbus.testing.Integration;
import io.agentbus.testing.InteropServers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The chat page in a real browser (Debian's headless Chromium) against Agentbus with the demo
 * model, the demo MCP server (a child JVM) and an SQLite store: a turn with a tool call renders,
 * the sidebar lists it, a second conversation, reopening the first shows its history and a
 * further message continues it (checked through the API), paging, delete with confirm, a 401
 * shown before the token is entered, and the narrow layout. Every wait is on a DOM condition.
 */
@Integration
class ChatPageBrowserTest {

  private static final String TOKEN = "browser-token-4b7e1d";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String PARIS = "What is the weather in Paris?";
  private static final String ATLANTIS = "What is the weather in Atlantis?";
  private static final String TOKYO = "What is the weather in Tokyo?";
  private static final String WEATHER_TOOL = "mcp__demo__get_weather";

  /** Each log line as "user: …", "assistant: …", "tool[!] name [state] args=… result=…", "status: …", "error: …". */
  private static final String LOG_ENTRIES = """
      return [...document.querySelectorAll('#log .msg, #log .tool, #log .status')].map(e => {
        if (e.classList.contains('tool')) {
          const q = s => e.querySelector(s).textContent;
          return (e.classList.contains('error') ? 'tool! ' : 'tool ') + q('.name').slice(5) + ' [' + q('.state') + ']'
            + ' args=' + q('.args') + ' result=' + q('.result');
        }
        const kind = ['user', 'assistant', 'error'].find(c => e.classList.contains(c)) || 'status';
        return kind + ': ' + e.textContent;
      });""";
  private static final String SIDEBAR = """
      return [...document.querySelectorAll('#conversations li')].map(li => ({
        id: li.dataset.id, title: li.querySelector('.title').textContent, meta: li.querySelector('.meta').textContent,
        current: li.classList.contains('current')}));""";

  @TempDir
  Path dir;

  private Vertx vertx;
  private MockModelServer mock;
  private Agentbus agentbus;
  private HttpApiVerticle api;
  private WebClient web;
  private ChromeDriver driver;
  private WebDriverWait wait;

  @BeforeEach
  void start() throws Exception {
    Chromium.requireInstalled();
    vertx = Vertx.vertx();
    mock = MockModelServer.start(vertx, new MockModelOptions().setMode(MockModelOptions.MODE_DEMO)).await(20, TimeUnit.SECONDS);
    ModelOptions model = new ModelOptions().setProvider("anthropic").setApiKey("test-key")
      .setBaseUrl("http://127.0.0.1:" + mock.actualPort()).setModel("mock");
    agentbus = Agentbus.deploy(vertx, new AgentbusOptions()
        .addMcpServer(InteropServers.javaMain("demo", DemoMcpServer.class))
        .setStore(new StoreOptions().setType(StoreOptions.Type.SQLITE).setPath(dir.resolve("agentbus.db").toString())
          .setSynchronous(StoreOptions.Synchronous.NORMAL))
        .setConversationInstances(2)
        .setConversation(new ConversationOptions().setModel(model)))
      .await(60, TimeUnit.SECONDS);
    agentbus.serversReady().timeout(60, TimeUnit.SECONDS).await(70, TimeUnit.SECONDS);
    api = new HttpApiVerticle(new HttpApiOptions().setPort(0).setHost("127.0.0.1").addToken(TOKEN, "tester")
      .setServers(List.of("demo"))).setDemoModel(true);
    vertx.deployVerticle(api).await(20, TimeUnit.SECONDS);
    web = WebClient.create(vertx);
    driver = Chromium.start(Files.createDirectories(dir.resolve("profile")), 1280, 900);
    wait = new WebDriverWait(driver, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
  }

  @AfterEach
  void stop() throws Exception {
    if (driver != null) {
      driver.quit();
    }
    if (vertx != null) {
      Future<Void> chain = agentbus == null ? Future.succeededFuture() : agentbus.close();
      chain.eventually(() -> mock == null ? Future.succeededFuture() : mock.close())
        .eventually(() -> vertx.close()).await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void chatsListsReopensContinuesPagesAndDeletesConversations() throws Exception {
    try {
      scenario();
    } catch (Throwable t) {
      keepEvidence();
      throw t;
    }
  }

  private void scenario() throws Exception {
    driver.get("http://127.0.0.1:" + api.actualPort() + "/");

    // no token yet: the sidebar says why it has nothing, never silently empty
    String refused = until("the sidebar shows the 401", d -> text("list-error").contains("401") ? text("list-error") : null);
    assertTrue(refused.contains("401 unauthorized") && refused.contains("enter the API token above"), refused);
    until("the demo badge", d -> d.findElement(By.id("demo")).isDisplayed());

    // the token is taken on change, and the list reloads with it
    driver.findElement(By.id("token")).sendKeys(TOKEN, Keys.TAB);
    until("the empty list after the token", d -> text("list-error").isEmpty() && d.findElement(By.id("list-empty")).isDisplayed());

    // a first turn with a real tool call
    List<String> first = sendAndAwait(PARIS);
    assertEquals("user: " + PARIS, first.get(0), first.toString());
    String parisTool = only(first, "tool " + WEATHER_TOOL + " [done (");
    assertTrue(parisTool.contains("args={\"city\":\"Paris\"}"), parisTool);
    assertTrue(parisTool.contains("result=Paris: light rain, 11 °C"), parisTool);
    assertTrue(first.stream().anyMatch(e -> e.startsWith("assistant: Here is what I found:") && e.contains("Paris: light rain")),
      first.toString());
    assertTrue(first.get(first.size() - 1).startsWith("status: end_turn"), first.toString());

    List<Map<String, Object>> listed = sidebarUntil("the first conversation in the sidebar",
      s -> s.size() == 1 && PARIS.equals(s.get(0).get("title")) && Boolean.TRUE.equals(s.get(0).get("current"))
        && String.valueOf(s.get(0).get("meta")).endsWith("· 1 turn"));
    String paris = (String) listed.get(0).get("id");

    // a new conversation: the log empties, nothing is highlighted, and its turn is separate
    driver.findElement(By.id("reset")).click();
    assertTrue(logEntries().isEmpty(), logEntries().toString());
    assertTrue(sidebar().stream().noneMatch(c -> Boolean.TRUE.equals(c.get("current"))), sidebar().toString());
    List<String> second = sendAndAwait(ATLANTIS);
    String failedTool = only(second, "tool! " + WEATHER_TOOL + " [failed (");
    assertTrue(failedTool.contains("result=No weather data for Atlantis."), failedTool);
    listed = sidebarUntil("both conversations, newest first",
      s -> s.size() == 2 && ATLANTIS.equals(s.get(0).get("title")) && Boolean.TRUE.equals(s.get(0).get("current"))
        && paris.equals(s.get(1).get("id")));
    String atlantis = (String) listed.get(0).get("id");

    // reopening the first renders its stored history like the live turn
    driver.findElement(By.cssSelector("#conversations li[data-id='" + paris + "'] .open")).click();
    List<String> history = until("the first conversation's history", d -> {
      List<String> entries = logEntries();
      return entries.stream().anyMatch(e -> e.startsWith("status: 1 turn")) ? entries : null;
    });
    assertEquals("user: " + PARIS, history.get(0), history.toString());
    String storedTool = only(history, "tool " + WEATHER_TOOL + " [done]");
    assertTrue(storedTool.contains("args={\"city\":\"Paris\"}") && storedTool.contains("result=Paris: light rain, 11 °C"), storedTool);
    assertTrue(history.stream().anyMatch(e -> e.startsWith("assistant: Here is what I found:")), history.toString());
    assertTrue(history.stream().noneMatch(e -> e.contains("Atlantis")), history.toString());
    sidebarUntil("the first conversation highlighted", s -> s.stream()
      .anyMatch(c -> paris.equals(c.get("id")) && Boolean.TRUE.equals(c.get("current"))));

    // a further message continues it: the API says the turn landed there
    List<String> continued = sendAndAwait(TOKYO);
    assertEquals("user: " + PARIS, continued.get(0), "the history stays above the new turn: " + continued);
    assertTrue(continued.stream().anyMatch(e -> e.startsWith("tool " + WEATHER_TOOL) && e.contains("result=Tokyo: sunny")),
      continued.toString());
    JsonObject stored = apiJson(HttpMethod.GET, "/v1/conversations/" + paris, 200);
    assertEquals(2, stored.getInteger("turns"), stored.encode());
    JsonArray messages = stored.getJsonArray("messages");
    assertEquals(PARIS, messages.getJsonObject(0).getValue("content"));
    assertEquals(TOKYO, messages.getJsonObject(4).getValue("content"), messages.encode());
    assertEquals(1, apiJson(HttpMethod.GET, "/v1/conversations/" + atlantis, 200).getInteger("turns"));
    sidebarUntil("the continued conversation on top with 2 turns", s -> s.size() == 2 && paris.equals(s.get(0).get("id"))
      && String.valueOf(s.get(0).get("meta")).endsWith("· 2 turns") && Boolean.TRUE.equals(s.get(0).get("current")));

    // delete asks first: dismissed keeps it, accepted deletes it
    driver.findElement(By.cssSelector("#conversations li[data-id='" + paris + "'] .delete")).click();
    Alert ask = wait.until(ExpectedConditions.alertIsPresent());
    assertTrue(ask.getText().contains(PARIS), ask.getText());
    ask.dismiss();
    driver.findElement(By.cssSelector("#conversations li[data-id='" + atlantis + "'] .delete")).click();
    ask = wait.until(ExpectedConditions.alertIsPresent());
    assertTrue(ask.getText().contains(ATLANTIS), ask.getText());
    ask.accept();
    sidebarUntil("only the first conversation left", s -> s.size() == 1 && paris.equals(s.get(0).get("id")));
    apiJson(HttpMethod.GET, "/v1/conversations/" + atlantis, 404);
    assertEquals(2, apiJson(HttpMethod.GET, "/v1/conversations/" + paris, 200).getInteger("turns"), "the dismissed one stays");

    // paging: 21 conversations show 20 and "more", which brings the last
    for (int i = 0; i < 20; i++) {
      apiJson(HttpMethod.POST, "/v1/conversations", 201);
    }
    driver.findElement(By.id("refresh")).click();
    sidebarUntil("the first page", s -> s.size() == 20 && "(new conversation)".equals(s.get(0).get("title")));
    assertTrue(driver.findElement(By.id("more")).isDisplayed());
    driver.findElement(By.id("more")).click();
    List<Map<String, Object>> all = sidebarUntil("the second page", s -> s.size() == 21);
    assertEquals(paris, all.get(20).get("id"), "the oldest comes last");
    until("no more pages", d -> !d.findElement(By.id("more")).isDisplayed());

    // narrow screens: the sidebar sits above the chat, collapsed until asked for
    driver.manage().window().setSize(new Dimension(480, 900));
    WebElement toggle = until("the sidebar toggle", d -> d.findElement(By.id("toggle")).isDisplayed() ? d.findElement(By.id("toggle")) : null);
    assertFalse(driver.findElement(By.id("conversations")).isDisplayed(), "collapsed on a narrow screen");
    WebElement side = driver.findElement(By.id("sidebar"));
    assertTrue(side.getRect().getY() + side.getRect().getHeight() <= driver.findElement(By.id("log")).getRect().getY(),
      "the sidebar is above the chat");
    toggle.click();
    until("the list shown", d -> d.findElement(By.id("conversations")).isDisplayed());
  }

  /** Types a message, presses Enter, waits until its turn has ended and the page is ready again. */
  private List<String> sendAndAwait(String message) {
    int turns = driver.findElements(By.cssSelector("#log .turn")).size();
    driver.findElement(By.id("input")).sendKeys(message, Keys.ENTER);
    return until("the turn for '" + message + "' to end", d -> {
      List<WebElement> boxes = d.findElements(By.cssSelector("#log .turn"));
      boolean ended = boxes.size() == turns + 1
        && !boxes.get(turns).findElements(By.cssSelector(".status, .msg.error")).isEmpty()
        && d.findElement(By.id("send")).isEnabled();
      return ended ? logEntries() : null;
    });
  }

  private <T> T until(String what, Function<WebDriver, T> condition) {
    wait.withMessage(() -> "waiting for " + what + "; " + pageState());
    return wait.until(condition::apply);
  }

  /** What the page shows, for a failure message; a page without the sidebar (an old page) says so. */
  private String pageState() {
    try {
      return "the log: " + logEntries() + "; the sidebar: " + sidebar() + "; its error: " + text("list-error");
    } catch (RuntimeException e) {
      return "the page has no sidebar (" + e.getClass().getSimpleName() + ")";
    }
  }

  private List<Map<String, Object>> sidebarUntil(String what, java.util.function.Predicate<List<Map<String, Object>>> ok) {
    return until(what, d -> {
      List<Map<String, Object>> s = sidebar();
      return ok.test(s) ? s : null;
    });
  }

  @SuppressWarnings("unchecked")
  private List<String> logEntries() {
    return (List<String>) driver.executeScript(LOG_ENTRIES);
  }

  @SuppressWarnings("unchecked")
  private List<Map<String, Object>> sidebar() {
    return (List<Map<String, Object>>) driver.executeScript(SIDEBAR);
  }

  private String text(String id) {
    return driver.findElement(By.id(id)).getText();
  }

  private static String only(List<String> entries, String prefix) {
    List<String> found = entries.stream().filter(e -> e.startsWith(prefix)).toList();
    assertEquals(1, found.size(), "one entry starting with '" + prefix + "' in " + entries);
    return found.get(0);
  }

  private JsonObject apiJson(HttpMethod method, String path, int status) throws Exception {
    var request = web.request(method, api.actualPort(), "127.0.0.1", path).bearerTokenAuthentication(TOKEN);
    HttpResponse<Buffer> resp = (method == HttpMethod.POST ? request.sendJsonObject(new JsonObject()) : request.send())
      .await(30, TimeUnit.SECONDS);
    assertEquals(status, resp.statusCode(), method + " " + path + ": " + resp.bodyAsString());
    return status == 200 || status == 201 ? resp.bodyAsJsonObject() : null;
  }

  /** A failed run leaves a screenshot and the page's HTML under target/browser-test/. */
  private void keepEvidence() {
    try {
      Path out = Files.createDirectories(Path.of("target", "browser-test"));
      Files.write(out.resolve("ChatPageBrowserTest.png"), driver.getScreenshotAs(OutputType.BYTES));
      Files.writeString(out.resolve("ChatPageBrowserTest.html"), driver.getPageSource());
      System.err.println("ChatPageBrowserTest: screenshot and page kept in " + out.toAbsolutePath());
    } catch (Exception | Error e) {
      System.err.println("ChatPageBrowserTest: could not keep the screenshot: " + e);
    }
  }
}
