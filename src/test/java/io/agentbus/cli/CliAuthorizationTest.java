package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.auth.ProtectedMcpServer;
import io.agentbus.testing.LogCapture;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code call} and {@code tools} against a protected HTTP MCP server, run in-process as a
 * person would: the test reads the authorization URL the command prints on stderr and opens
 * it (its authorization server approves at once and redirects to the command's loopback
 * listener), refuses it, or never comes back. No token or code appears in the output or logs.
 */
class CliAuthorizationTest {

  private static final Pattern URL_LINE = Pattern.compile(
    "^agentbus: open this URL in a browser to authorize server 'protected' \\(waiting [0-9.]+ s\\): (http://\\S+)$");

  @RegisterExtension
  final LogCapture.Lines logs = LogCapture.perTest();

  @TempDir
  Path dir;
  private Vertx vertx;
  private ProtectedMcpServer server;
  private WebClient browser;
  private Path config;

  /** A command running on its own thread; {@link #url} completes with the URL it prints. */
  private static final class Running {
    final CompletableFuture<String> url = new CompletableFuture<>();
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final StringBuilder err = new StringBuilder();
    final CompletableFuture<Integer> code;

    Running(String... args) {
      OutputStream errStream = new OutputStream() {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
          if (b != '\n') {
            line.write(b);
            return;
          }
          String l = line.toString(StandardCharsets.UTF_8);
          line.reset();
          synchronized (err) {
            err.append(l).append('\n');
          }
          Matcher m = URL_LINE.matcher(l);
          if (m.matches()) {
            url.complete(m.group(1));
          }
        }
      };
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(errStream, true, StandardCharsets.UTF_8);
      code = CompletableFuture.supplyAsync(() -> AgentMain.run(List.of(args), o, e));
      code.whenComplete((c, t) -> url.completeExceptionally(new AssertionError("the command ended without a URL: " + err())));
    }

    String out() {
      return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
      synchronized (err) {
        return err.toString();
      }
    }

    String url() throws Exception {
      return url.get(30, TimeUnit.SECONDS);
    }

    int exitCode() throws Exception {
      return code.get(60, TimeUnit.SECONDS);
    }
  }

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = await(ProtectedMcpServer.start(vertx));
    browser = WebClient.create(vertx, new WebClientOptions().setFollowRedirects(true));
    config = Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("protected", new JsonObject().put("url", server.url()).put("oauth", new JsonObject()))).encodePrettily());
  }

  @AfterEach
  void stop() throws Exception {
    await(server.close());
    await(vertx.close());
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private Running command(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--mcp-config");
    all.add(config.toString());
    return new Running(all.toArray(String[]::new));
  }

  private HttpResponse<Buffer> open(String url) throws Exception {
    return await(browser.getAbs(url).timeout(20_000).send());
  }

  private static String param(String url, String name) {
    for (String pair : URI.create(url).getRawQuery().split("&")) {
      if (pair.startsWith(name + "=")) {
        return URLDecoder.decode(pair.substring(name.length() + 1), StandardCharsets.UTF_8);
      }
    }
    throw new AssertionError("no " + name + " in " + url);
  }

  private void assertNoSecret(Running r) {
    for (String secret : server.secrets()) {
      assertFalse(r.out().contains(secret), "a secret in stdout");
      assertFalse(r.err().contains(secret), "a secret in stderr");
      assertFalse(logs.contains(secret), "a secret in the log");
    }
  }

  private static void assertClosed(String redirectUri) {
    URI u = URI.create(redirectUri);
    assertThrows(ConnectException.class, () -> new Socket(u.getHost(), u.getPort()).close(),
      "the loopback listener is still open after the command");
  }

  @Test
  void callPrintsTheUrlWaitsForTheBrowserAndCallsTheTool() throws Exception {
    Running r = command("call", "protected", "echo", "{}", "--authorize-timeout", "30000");
    String url = r.url();
    String redirect = param(url, "redirect_uri");
    assertTrue(redirect.matches("http://127\\.0\\.0\\.1:[0-9]+/oauth/callback"), redirect);

    // a callback that belongs to no request changes nothing: the command goes on waiting
    HttpResponse<Buffer> stray = open(redirect + "?code=x&state=" + URLEncoder.encode("not-the-state", StandardCharsets.UTF_8));
    assertEquals(400, stray.statusCode());
    assertTrue(stray.bodyAsString().contains("unknown or has expired"), stray.bodyAsString());
    assertFalse(r.code.isDone(), r.err());

    // the person: opens the URL, the authorization server approves and sends the browser back
    HttpResponse<Buffer> page = open(url);
    assertEquals(200, page.statusCode());
    assertTrue(page.getHeader("Content-Type").startsWith("text/html"), page.getHeader("Content-Type"));
    assertTrue(page.bodyAsString().contains("Server &#39;protected&#39; is authorized. You may close this window"),
      page.bodyAsString());

    assertEquals(Cli.OK, r.exitCode(), r.err());
    assertEquals("ok", new JsonObject(r.out()).getJsonArray("content").getJsonObject(0).getString("text"));
    assertEquals(1, server.tokensIssued());
    assertEquals(1, r.err().lines().count(), r.err());
    assertNoSecret(r);
    assertClosed(redirect);
  }

  @Test
  void toolsAuthorizesTheSameWay() throws Exception {
    Running r = command("tools");
    HttpResponse<Buffer> page = open(r.url());
    assertEquals(200, page.statusCode());
    assertEquals(Cli.OK, r.exitCode(), r.err());
    assertTrue(r.out().contains("protected (protected 1, protocol 2025-11-25): 1 tools"), r.out());
    assertTrue(r.out().contains("  echo"), r.out());
    assertNoSecret(r);
  }

  @Test
  void aRefusedAuthorizationEndsTheCommandClearly() throws Exception {
    Running r = command("call", "protected", "echo");
    String url = r.url();
    // the person refuses: the authorization server sends the browser back with an error
    HttpResponse<Buffer> page = open(param(url, "redirect_uri") + "?error=access_denied&error_description="
      + URLEncoder.encode("The person said <no>", StandardCharsets.UTF_8) + "&state="
      + URLEncoder.encode(param(url, "state"), StandardCharsets.UTF_8));
    assertEquals(200, page.statusCode());
    assertTrue(page.bodyAsString().contains("was not authorized (access_denied: The person said &lt;no&gt;)"),
      page.bodyAsString());

    assertEquals(Cli.FAILURE, r.exitCode(), r.err());
    assertTrue(r.err().contains("agentbus: server 'protected': authorization was refused (access_denied: The person said <no>)"),
      r.err());
    assertEquals("", r.out());
    assertEquals(0, server.tokensIssued());
    assertNoSecret(r);
    assertClosed(param(url, "redirect_uri"));
  }

  @Test
  void aPersonWhoNeverComesBackEndsTheCommandAtItsDeadline() throws Exception {
    long t0 = System.nanoTime();
    Running r = command("call", "protected", "echo", "--authorize-timeout", "1500");
    String url = r.url();
    assertEquals(Cli.FAILURE, r.exitCode(), r.err());
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertTrue(ms >= 1500 && ms < 20_000, ms + " ms");
    assertTrue(r.err().contains("agentbus: server 'protected': nobody completed the authorization within 1.5 s"
      + " (--authorize-timeout); run the command again for a new URL"), r.err());
    assertNoSecret(r);
    assertClosed(param(url, "redirect_uri"));
  }

  @Test
  void aLoopbackRedirectUriOfTheServerIsListenedOn() throws Exception {
    int port;
    try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    String redirect = "http://127.0.0.1:" + port + "/my/callback";
    writeConfig(new JsonObject().put("redirectUri", redirect));
    Running r = command("call", "protected", "echo");
    String url = r.url();
    assertEquals(redirect, param(url, "redirect_uri"));
    assertEquals(200, open(url).statusCode());
    assertEquals(Cli.OK, r.exitCode(), r.err());
    assertNoSecret(r);
    assertClosed(redirect);
  }

  @Test
  void aRedirectUriTheCommandLineCannotReceiveFailsAtOnce() throws Exception {
    writeConfig(new JsonObject().put("redirectUri", "https://app.example.com/oauth/callback"));
    Running r = command("call", "protected", "echo");
    assertEquals(Cli.FAILURE, r.exitCode(), r.err());
    assertTrue(r.err().contains("server 'protected' sends the person back to https://app.example.com/oauth/callback"
      + " (oauth.redirectUri), which the command line cannot receive"), r.err());
    assertFalse(r.url.isDone() && !r.url.isCompletedExceptionally(), "a URL was printed: " + r.err());
  }

  private void writeConfig(JsonObject oauth) throws IOException {
    Files.writeString(config, new JsonObject().put("mcpServers", new JsonObject()
      .put("protected", new JsonObject().put("url", server.url()).put("oauth", oauth))).encodePrettily());
  }

  @Test
  void aBadAuthorizeTimeoutIsAUsageError() throws Exception {
    for (String bad : List.of("0", "600001", "soon")) {
      Running r = command("call", "protected", "echo", "--authorize-timeout", bad);
      assertEquals(Cli.FAILURE, r.exitCode(), r.err());
      assertTrue(r.err().contains("agentbus: --authorize-timeout must be milliseconds from 1 to 600000 (was '" + bad + "')"),
        r.err());
    }
    assertEquals(0, server.tokensIssued());
  }
}
