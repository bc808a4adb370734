package io.agentbus.cli;

import io.agentbus.bus.Actions;
import io.agentbus.bus.Addresses;
import io.agentbus.config.AgentConfig;
import io.agentbus.config.McpConfig;
import io.agentbus.model.ModelOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code agentbus chat [--config FILE] [--mcp-config FILE]}: a terminal chat with an
 * in-process Agentbus. Answers stream as they arrive; tool calls are shown as they start and
 * finish. The main thread reads stdin and prints; turn events reach it through a queue, so
 * no event-loop thread ever writes to the terminal. Unless {@code --verbose}, log lines go to
 * a file named in the banner, so they never land in the middle of the prompt.
 */
public final class ChatCommand {

  /** How long the banner waits for each server's status. */
  private static final long STATUS_TIMEOUT_MS = 2_000;

  private ChatCommand() {
  }

  public static int run(Vertx vertx, CliArgs args, InputStream in, PrintStream out, PrintStream err) {
    if (args.option("url", null) != null) {
      return RemoteChat.run(args, in, out, err);
    }
    AgentConfig agent = Cli.loadAgentConfig(args);
    McpConfig mcp = Cli.loadMcpConfig(args);
    try (ChatLog log = args.flag("verbose") ? ChatLog.unchanged() : ChatLog.toFile()) {
      Launcher.Launched launched;
      try {
        launched = Cli.await(Launcher.start(vertx, agent, mcp));
      } catch (RuntimeException e) {
        return Cli.fail(err, "cannot start Agentbus: " + e.getMessage() + (log.path() == null ? "" : " (log: " + log.path() + ")"));
      }
      try {
        return chat(vertx, launched, agent, log, in, out, err);
      } finally {
        Cli.await(launched.close().otherwiseEmpty());
      }
    }
  }

  private static int chat(Vertx vertx, Launcher.Launched launched, AgentConfig agent, ChatLog log, InputStream in,
                          PrintStream out, PrintStream err) {
    String id = Cli.await(launched.agentbus().createConversation(new JsonObject()));
    BlockingQueue<JsonObject> events = new LinkedBlockingQueue<>();
    MessageConsumer<JsonObject> consumer = vertx.eventBus().localConsumer(Addresses.conversationEvents(id), m -> events.offer(m.body()));
    Cli.await(consumer.completion());
    out.println(banner(vertx, launched, agent, log));
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    try {
      while (true) {
        out.print("\nyou> ");
        out.flush();
        String line = reader.readLine();
        if (line == null || line.isBlank()) {
          break;
        }
        events.clear(); // a late event of an earlier turn must not be shown as part of this one
        Future<JsonObject> turn = launched.agentbus().send(id, line);
        out.print("agentbus> ");
        boolean reported = printUntilDone(events, turn, out, approver(vertx, id, reader, out));
        try {
          Cli.await(turn);
        } catch (RuntimeException e) {
          if (!reported) {
            out.println("\n  [turn failed: " + e.getMessage() + "]");
          }
        }
      }
    } catch (IOException e) {
      return Cli.fail(err, "cannot read stdin: " + e.getMessage());
    } finally {
      Cli.await(consumer.unregister().otherwiseEmpty());
    }
    return Cli.OK;
  }

  /** Says which model answers (the demo only when the mock is used), the servers and where the log goes. */
  static String banner(Vertx vertx, Launcher.Launched launched, AgentConfig agent, ChatLog log) {
    StringBuilder b = new StringBuilder("Agentbus chat");
    ModelOptions model = agent.conversation().getModel();
    if (launched.demoModel() != null) {
      b.append(". DEMO MODE: the built-in mock model answers (")
        .append(model.getApiKey() == null ? "no ANTHROPIC_API_KEY or OPENAI_API_KEY is set" : "model.demo is true")
        .append("); its answers are canned, the tool calls are real.");
    } else {
      b.append(" with ").append(model.getModel() != null ? model.getModel() + " (" + model.getProvider() + ")"
        : "the default " + model.getProvider() + " model").append('.');
    }
    b.append("\nMCP servers: ").append(servers(vertx, launched.agentbus().servers())).append('.');
    if (log.path() != null) {
      b.append(" Log: ").append(log.path()).append('.');
    }
    return b.append(" Empty line or Ctrl-D quits.").toString();
  }

  /** @return each server with its status, e.g. {@code demo (READY, 3 tools)} */
  private static String servers(Vertx vertx, List<String> names) {
    if (names.isEmpty()) {
      return "none";
    }
    List<Future<JsonObject>> statuses = new ArrayList<>();
    for (String name : names) {
      statuses.add(vertx.eventBus().<JsonObject>request(Addresses.mcp(name), new JsonObject(),
          new DeliveryOptions().addHeader(Actions.HEADER, Actions.STATUS).setSendTimeout(STATUS_TIMEOUT_MS))
        .map(Message::body)
        .otherwise(e -> new JsonObject().put("status", "UNKNOWN")));
    }
    Cli.await(Future.join(statuses).otherwiseEmpty());
    List<String> described = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      JsonObject s = statuses.get(i).result();
      String status = s.getString("status", "UNKNOWN");
      String more = "READY".equals(status) ? ", " + s.getValue("toolCount") + " tools"
        : s.getString("detail") != null ? ": " + s.getString("detail") : "";
      described.add(names.get(i) + " (" + status + more + ")");
    }
    return String.join(", ", described);
  }

  /** Reads the answer to an approval question from the terminal and sends it to the conversation. */
  private static Consumer<JsonObject> approver(Vertx vertx, String id, BufferedReader reader, PrintStream out) {
    return e -> {
      String line;
      try {
        line = reader.readLine();
      } catch (IOException ex) {
        line = null;
      }
      boolean yes = TurnPrinter.approves(line);
      JsonObject answer = new JsonObject().put("id", id).put("toolUseId", e.getString("tool_use_id")).put("approve", yes);
      if (!yes) {
        answer.put("reason", TurnPrinter.DECLINED);
      }
      try {
        Cli.await(vertx.eventBus().request(Addresses.CONVERSATION, answer,
          new DeliveryOptions().addHeader(Actions.HEADER, Actions.APPROVE).setSendTimeout(STATUS_TIMEOUT_MS * 5)));
        out.print("  [" + (yes ? "approved" : "denied") + "]");
      } catch (RuntimeException ex) {
        out.print("  [the answer was not taken: " + ex.getMessage() + "]");
      }
    };
  }

  /** @return whether the turn's {@code done} event was printed (it reports a failure itself) */
  private static boolean printUntilDone(BlockingQueue<JsonObject> events, Future<JsonObject> turn, PrintStream out,
                                        Consumer<JsonObject> approver) {
    TurnPrinter printer = new TurnPrinter(out, approver);
    while (true) {
      JsonObject e;
      try {
        e = events.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        return false;
      }
      if (e == null) {
        if (turn.failed()) {
          return false;
        }
        continue;
      }
      if (printer.print(e)) {
        return true;
      }
    }
  }
}
