package io.agentbus.cli;

import io.agentbus.bus.Addresses;
import io.agentbus.config.AgentConfig;
import io.agentbus.config.EnvExpander;
import io.agentbus.config.McpConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * {@code agentbus chat [--config FILE] [--mcp-config FILE]}: a terminal chat with an
 * in-process Agentbus. Answers stream as they arrive; tool calls are shown as they start and
 * finish. The main thread reads stdin and prints; turn events reach it through a queue, so
 * no event-loop thread ever writes to the terminal.
 */
public final class ChatCommand {

  private ChatCommand() {
  }

  public static int run(Vertx vertx, CliArgs args, InputStream in, PrintStream out, PrintStream err) {
    if (args.option("url", null) != null) {
      return RemoteChat.run(args, in, out, err);
    }
    AgentConfig agent = Cli.loadAgentConfig(args);
    McpConfig mcp = McpConfig.load(Path.of(args.option("mcp-config", Cli.DEFAULT_MCP_CONFIG)), EnvExpander.system());
    Launcher.Launched launched = Cli.await(Launcher.start(vertx, agent, mcp));
    try {
      String id = Cli.await(launched.agentbus().createConversation(new JsonObject()));
      BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
      MessageConsumer<JsonObject> consumer = vertx.eventBus().localConsumer(Addresses.conversationEvents(id), m -> events.offer(m.body()));
      Cli.await(consumer.completion());
      out.println("Agentbus chat (" + String.join(", ", launched.agentbus().servers()) + "). Empty line or Ctrl-D quits.");
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      while (true) {
        out.print("\nyou> ");
        out.flush();
        String line = reader.readLine();
        if (line == null || line.isBlank()) {
          break;
        }
        var turn = launched.agentbus().send(id, line);
        out.print("agentbus> ");
        printUntilDone(events, turn, out);
        try {
          Cli.await(turn);
        } catch (RuntimeException e) {
          err.println("\n[turn failed: " + e.getMessage() + "]");
        }
      }
      Cli.await(consumer.unregister());
      return Cli.OK;
    } catch (IOException e) {
      return Cli.fail(err, "cannot read stdin: " + e.getMessage());
    } finally {
      Cli.await(launched.close().otherwiseEmpty());
    }
  }

  private static void printUntilDone(BlockingQueue<JsonObject> events, Future<JsonObject> turn, PrintStream out) {
    TurnPrinter printer = new TurnPrinter(out);
    while (true) {
      JsonObject e;
      try {
        e = events.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return;
      }
      if (e == null) {
        if (turn.failed()) {
          return;
        }
        continue;
      }
      if (printer.print(e)) {
        return;
      }
    }
  }
}
