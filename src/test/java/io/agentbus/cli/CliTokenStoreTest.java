package io.agentbus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agentbus.mcp.auth.EncryptedFileTokenStore;
import io.agentbus.mcp.auth.ProtectedMcpServer;
import io.agentbus.store.StoreOptions;
import io.agentbus.testing.Integration;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tokens a person grants to {@code agentbus call} land, encrypted, where {@code serve} keeps
 * them given the same {@code --config} and {@code AGENTBUS_TOKEN_KEY}: the conversation store's
 * {@code oauth_tokens} table (SQLite by default), or with the {@code memory} store the file
 * {@code AGENTBUS_TOKEN_FILE}. A later {@code call} and a later {@code serve} find them: neither
 * asks again. Ctrl-C while the
 * command waits for the person ends it and its loopback listener. Each command runs in its own
 * JVM, as users run them.
 */
@Integration
class CliTokenStoreTest {

  private static final Pattern URL_LINE = Pattern.compile("authorize server 'protected' \\(waiting [0-9.]+ s\\): (http://\\S+)$");

  @TempDir
  Path dir;
  private Vertx vertx;
  private ProtectedMcpServer server;
  private String key;

  /** A child JVM running {@code AgentMain} in {@link #dir} with the token store's environment; its output lines. */
  private final class Child {
    final Process process;
    final List<String> out = new CopyOnWriteArrayList<>();
    final List<String> err = new CopyOnWriteArrayList<>();
    final CompletableFuture<Matcher> match = new CompletableFuture<>();
    private final Pattern pattern;

    Child(Pattern pattern, String... args) throws Exception {
      this.pattern = pattern;
      List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), AgentMain.class.getName()));
      cmd.addAll(List.of(args));
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
      pb.environment().remove("ANTHROPIC_API_KEY");
      pb.environment().remove("OPENAI_API_KEY");
      pb.environment().remove("AGENTBUS_TOKEN_FILE");
      pb.environment().put("AGENTBUS_TOKEN_KEY", key);
      pb.environment().put("AGENTBUS_PORT", "0");
      process = pb.start();
      read(process.getInputStream(), out);
      read(process.getErrorStream(), err);
    }

    private void read(InputStream in, List<String> lines) {
      Thread t = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
            Matcher m = pattern.matcher(line);
            if (m.find()) {
              match.complete(m);
            }
          }
        } catch (Exception e) {
          lines.add("reader ended: " + e);
        }
      }, "child-output");
      t.setDaemon(true);
      t.start();
    }

    int exit() throws Exception {
      assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the command did not end: " + err);
      return process.exitValue();
    }

    String all() {
      return String.join("\n", out) + "\n" + String.join("\n", err);
    }
  }

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server = await(ProtectedMcpServer.start(vertx));
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    key = Base64.getEncoder().encodeToString(k);
    Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
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

  @Test
  void ctrlCWhileWaitingEndsTheCommandAndItsListener() throws Exception {
    Child call = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json");
    String url = call.match.get(60, TimeUnit.SECONDS).group(1);
    URI redirect = URI.create(URLDecoder.decode(url.replaceAll(".*[?&]redirect_uri=([^&]*).*", "$1"), StandardCharsets.UTF_8));
    new Socket(redirect.getHost(), redirect.getPort()).close();
    assertEquals(0, new ProcessBuilder("kill", "-INT", String.valueOf(call.process.pid())).start().waitFor());
    assertTrue(call.process.waitFor(30, TimeUnit.SECONDS), "Ctrl-C did not end the command: " + call.all());
    assertThrows(ConnectException.class, () -> new Socket(redirect.getHost(), redirect.getPort()).close());
    assertEquals(0, server.tokensIssued());
  }

  @Test
  void aLaterCallAndServeUseTheTokensTheCommandLineObtainedFromTheConversationStore() throws Exception {
    // the default store: SQLite at data/agentbus.db
    Files.writeString(dir.resolve("agent.json"), "{}");
    authorizeThenCallAndServe(() -> {
      assertFalse(Files.exists(dir.resolve(EncryptedFileTokenStore.DEFAULT_PATH)), "a token file next to the store");
      List<String> rows = new ArrayList<>();
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(StoreOptions.DEFAULT_PATH));
           Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT tenant, server_key FROM oauth_tokens")) {
        while (rs.next()) {
          rows.add("'" + rs.getString(1) + "' " + rs.getString(2));
        }
      }
      assertEquals(List.of("'' protected " + server.url()), rows);
      StringBuilder raw = new StringBuilder();
      for (String suffix : new String[] {"", "-wal"}) {
        Path f = dir.resolve(StoreOptions.DEFAULT_PATH + suffix);
        if (Files.exists(f)) {
          raw.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
        }
      }
      return raw.toString();
    });
  }

  @Test
  void withTheMemoryStoreTheTokensGoToTheEncryptedFile() throws Exception {
    Files.writeString(dir.resolve("agent.json"), "{\"store\": {\"type\": \"memory\"}}");
    authorizeThenCallAndServe(() -> {
      // the default file, relative to the working directory, encrypted and private
      Path file = dir.resolve(EncryptedFileTokenStore.DEFAULT_PATH);
      assertTrue(Files.exists(file), "no token file");
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
      return new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
    });
  }

  @Test
  void anotherKeyEndsTheCommandClearlyAndTheStoredTokensStay() throws Exception {
    Files.writeString(dir.resolve("agent.json"), "{}");
    Child first = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
    WebClient browser = WebClient.create(vertx);
    assertEquals(200, await(browser.getAbs(first.match.get(60, TimeUnit.SECONDS).group(1)).send()).statusCode());
    assertEquals(0, first.exit(), first.all());

    String right = key;
    byte[] k = new byte[32];
    new SecureRandom().nextBytes(k);
    key = Base64.getEncoder().encodeToString(k);
    Child wrong = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
    assertEquals(2, wrong.exit(), wrong.all());
    assertFalse(wrong.match.isDone(), "asked for a new authorization: " + wrong.all());
    assertTrue(String.join("\n", wrong.err).contains("cannot be decrypted: they were written with another AGENTBUS_TOKEN_KEY"),
      wrong.all());
    for (String secret : server.secrets()) {
      assertFalse(wrong.all().contains(secret), "a secret in the output");
    }

    key = right;
    Child again = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
    assertEquals(0, again.exit(), again.all());
    assertEquals(1, server.tokensIssued());
  }

  @Test
  void aRunningServeUsesTheTokensTheCommandLineObtainsLater() throws Exception {
    Files.writeString(dir.resolve("agent.json"), "{}");
    Files.writeString(dir.resolve("mcp.json"), new JsonObject().put("mcpServers", new JsonObject()
      .put("protected", new JsonObject().put("url", server.url()).put("oauth", new JsonObject())
        .put("restart", new JsonObject().put("initialBackoffMs", 200).put("maxBackoffMs", 1000)))).encodePrettily());
    WebClient browser = WebClient.create(vertx);
    Child serve = new Child(Pattern.compile("Agentbus listening on http://127\\.0\\.0\\.1:(\\d+)"), "serve",
      "--config", "agent.json", "--mcp-config", "mcp.json");
    try {
      int port = Integer.parseInt(serve.match.get(60, TimeUnit.SECONDS).group(1));
      // serve has nobody to ask: the server waits for an authorization
      awaitStatus(browser, port, Set.of("RESTARTING", "DOWN"), serve);

      Child call = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
      assertEquals(200, await(browser.getAbs(call.match.get(60, TimeUnit.SECONDS).group(1)).send()).statusCode());
      assertEquals(0, call.exit(), call.all());

      // no restart, nobody asked again: serve finds the tokens in the store on its next attempt
      awaitStatus(browser, port, Set.of("READY"), serve);
      assertEquals(1, server.tokensIssued());
    } finally {
      serve.process.destroy();
      serve.process.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Polls {@code /health} until the server has one of {@code statuses} (at most 30 s). */
  private void awaitStatus(WebClient browser, int port, Set<String> statuses, Child serve) throws Exception {
    String now = "none yet";
    for (int i = 0; i < 150 && !statuses.contains(now); i++) {
      if (i > 0) {
        await(vertx.timer(200));
      }
      JsonObject health = await(browser.get(port, "127.0.0.1", "/health").send()).bodyAsJsonObject();
      now = health.getJsonObject("servers").getJsonObject("protected").getString("status");
    }
    assertTrue(statuses.contains(now), now + "\n" + serve.all());
  }

  /** What the tokens were written to, as bytes (Latin-1), after checking where they went. */
  private interface AtRest {
    String check() throws Exception;
  }

  private void authorizeThenCallAndServe(AtRest atRest) throws Exception {
    Child first = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
    String url = first.match.get(60, TimeUnit.SECONDS).group(1);
    WebClient browser = WebClient.create(vertx);
    assertEquals(200, await(browser.getAbs(url).send()).statusCode());
    assertEquals(0, first.exit(), first.all());
    assertTrue(String.join("\n", first.out).contains("\"text\" : \"ok\""), first.all());
    assertEquals(1, server.tokensIssued());

    String bytes = atRest.check();
    for (String secret : server.secrets()) {
      assertFalse(bytes.contains(secret), "a token in plain text at rest");
      assertFalse(first.all().contains(secret), "a secret in the output");
    }

    // a later call asks nobody
    Child second = new Child(URL_LINE, "call", "protected", "echo", "--mcp-config", "mcp.json", "--config", "agent.json");
    assertEquals(0, second.exit(), second.all());
    assertFalse(second.match.isDone(), second.all());
    assertEquals(1, server.tokensIssued());

    // nor does serve: the server becomes READY with the stored tokens
    Child serve = new Child(Pattern.compile("Agentbus listening on http://127\\.0\\.0\\.1:(\\d+)"), "serve",
      "--config", "agent.json", "--mcp-config", "mcp.json");
    try {
      int port = Integer.parseInt(serve.match.get(60, TimeUnit.SECONDS).group(1));
      JsonObject health = null;
      for (int i = 0; i < 150; i++) {
        health = await(browser.get(port, "127.0.0.1", "/health").send()).bodyAsJsonObject();
        if ("READY".equals(health.getJsonObject("servers").getJsonObject("protected").getString("status"))) {
          break;
        }
        await(vertx.timer(200));
      }
      assertNotNull(health);
      assertEquals("READY", health.getJsonObject("servers").getJsonObject("protected").getString("status"),
        health.encode() + "\n" + serve.all());
      assertEquals(1, server.tokensIssued());
    } finally {
      serve.process.destroy();
      serve.process.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
