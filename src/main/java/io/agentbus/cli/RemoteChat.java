package io.agentbus.cli;

import io.agentbus.sse.SseParser;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * {@code agentbus chat --url http://HOST:PORT [--token T]}: the terminal chat against a
 * running {@code serve}, over its HTTP API with SSE. Runs on the command line's main thread
 * with the JDK HTTP client (plain blocking calls: no event loop is involved).
 */
final class RemoteChat {

  private RemoteChat() {
  }

  static int run(CliArgs args, InputStream in, PrintStream out, PrintStream err) {
    String base = args.option("url", null).replaceAll("/+$", "");
    String token = args.option("token", System.getenv("AGENTBUS_TOKEN"));
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    try {
      HttpResponse<String> created = http.send(request(base + "/v1/conversations", token, "{}").build(),
        HttpResponse.BodyHandlers.ofString());
      if (created.statusCode() != 201) {
        return Cli.fail(err, "cannot create a conversation at " + base + ": HTTP " + created.statusCode() + " " + created.body());
      }
      String id = new JsonObject(created.body()).getString("id");
      out.println("Agentbus chat at " + base + demoNote(http, base) + ". Empty line or Ctrl-D quits.");
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      while (true) {
        out.print("\nyou> ");
        out.flush();
        String line = reader.readLine();
        if (line == null || line.isBlank()) {
          return Cli.OK;
        }
        turn(http, base + "/v1/conversations/" + id, token, line, reader, out, err);
      }
    } catch (IOException e) {
      return Cli.fail(err, "cannot talk to " + base + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Cli.FAILURE;
    }
  }

  /** @return a note when the server answers with its built-in demo model ({@code GET /info}) */
  private static String demoNote(HttpClient http, String base) throws InterruptedException {
    try {
      HttpResponse<String> info = http.send(HttpRequest.newBuilder(URI.create(base + "/info")).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
      return info.statusCode() == 200 && new JsonObject(info.body()).getBoolean("demo", false)
        ? " (DEMO MODE: its built-in mock model answers; the tool calls are real)" : "";
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  private static HttpRequest.Builder request(String url, String token, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("content-type", "application/json")
      .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("authorization", "Bearer " + token);
    }
    return b;
  }

  /** Reads the answer to an approval question from the terminal and posts it. */
  private static void answer(HttpClient http, String conversation, String token, JsonObject e, BufferedReader reader,
                             PrintStream out) {
    try {
      boolean yes = TurnPrinter.approves(reader.readLine());
      JsonObject body = new JsonObject().put("approve", yes);
      if (!yes) {
        body.put("reason", TurnPrinter.DECLINED);
      }
      String url = conversation + "/approvals/" + URLEncoder.encode(e.getString("tool_use_id"), StandardCharsets.UTF_8);
      HttpResponse<String> answered = http.send(request(url, token, body.encode()).build(), HttpResponse.BodyHandlers.ofString());
      out.print(answered.statusCode() == 200 ? "  [" + (yes ? "approved" : "denied") + "]"
        : "  [the answer was not taken: HTTP " + answered.statusCode() + " " + answered.body() + "]");
    } catch (IOException ex) {
      out.print("  [the answer was not taken: " + ex.getMessage() + "]");
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  private static void turn(HttpClient http, String conversation, String token, String text, BufferedReader reader,
                           PrintStream out, PrintStream err) throws IOException, InterruptedException {
    HttpRequest req = request(conversation + "/messages", token, new JsonObject().put("content", text).encode())
      .header("accept", "text/event-stream").build();
    HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream body = resp.body()) {
      if (resp.statusCode() != 200) {
        err.println("[HTTP " + resp.statusCode() + "] " + new String(body.readAllBytes(), StandardCharsets.UTF_8));
        return;
      }
      out.print("agentbus> ");
      TurnPrinter printer = new TurnPrinter(out, e -> answer(http, conversation, token, e, reader, out));
      boolean[] done = {false};
      SseParser parser = SseParser.create();
      parser.handler(event -> {
        if (done[0] || event.data() == null || event.data().isEmpty()) {
          return;
        }
        JsonObject data = new JsonObject(event.data());
        if ("error".equals(event.event())) {
          JsonObject error = data.getJsonObject("error", new JsonObject());
          out.println("\n  [turn failed: " + error.getString("message", data.encode()) + "]");
          done[0] = true;
        } else {
          done[0] = printer.print(data.put("type", event.event()));
        }
      });
      byte[] buf = new byte[8192];
      int n;
      while (!done[0] && (n = body.read(buf)) != -1) {
        parser.handle(Buffer.buffer(java.util.Arrays.copyOf(buf, n)));
      }
    }
  }
}
