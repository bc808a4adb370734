package io.agentbus.cli;

import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Prints one turn's events for a terminal chat: streamed text, tool calls, approvals asked for,
 * the end status.
 */
final class TurnPrinter {

  private final PrintStream out;
  private final Consumer<JsonObject> onApproval;
  private boolean printedText;

  /**
   * @param onApproval called (on the printing thread) with an {@code approval_required} event once
   *     its question is printed: it reads the answer and sends it
   */
  TurnPrinter(PrintStream out, Consumer<JsonObject> onApproval) {
    this.out = out;
    this.onApproval = onApproval;
  }

  /** Prints one event; returns {@code true} on the turn's {@code done} event. */
  boolean print(JsonObject e) {
    switch (e.getString("type", "")) {
      case "text_delta" -> {
        out.print(e.getString("text"));
        printedText = true;
      }
      case "tool_call_started" -> out.print("\n  [tool " + e.getString("name") + " ...]");
      case "tool_call_progress" -> out.print("\n  [tool " + e.getString("name") + ": " + progress(e) + "]");
      case "approval_required" -> {
        out.print("\n  [tool " + e.getString("name") + " wants to run with " + e.getValue("arguments")
          + ": approve? y/N] ");
        out.flush();
        onApproval.accept(e);
      }
      case "approval_resolved" -> {
        if (!"user".equals(e.getString("decidedBy"))) {
          out.print("\n  [tool " + e.getString("name") + " not approved: " + e.getString("decidedBy")
            + (e.getString("reason") == null ? "" : " (" + e.getString("reason") + ")") + "]");
        }
      }
      case "tool_call_finished" -> out.print("\n  [tool " + e.getString("name") + (e.getBoolean("is_error", false)
        ? " failed" : " done") + " in " + e.getValue("duration_ms") + " ms]\nagentbus> ");
      case "done" -> {
        JsonObject result = e.getJsonObject("result", new JsonObject());
        if (!printedText) {
          out.print(result.getString("answer", ""));
        }
        String status = result.getString("status", "");
        if ("error".equals(status)) {
          out.print("\n  [turn failed: " + result.getValue("error", "unknown error") + "]");
        } else if (!"end_turn".equals(status)) {
          out.print("\n  [" + status + (result.containsKey("error") ? ": " + result.getValue("error") : "") + "]");
        }
        out.println();
        return true;
      }
      default -> {
      }
    }
    return false;
  }

  /** @return whether a terminal answer approves: {@code y} or {@code yes}, in any case */
  static boolean approves(String answer) {
    String a = answer == null ? "" : answer.trim().toLowerCase(Locale.ROOT);
    return a.equals("y") || a.equals("yes");
  }

  /** The reason a terminal chat gives for a refusal. */
  static final String DECLINED = "declined in the terminal chat";

  /** @return e.g. {@code 3/10 copying} from a {@code tool_call_progress} event */
  static String progress(JsonObject e) {
    Object progress = e.getValue("progress");
    Object total = e.getValue("total");
    String message = e.getString("message");
    String amount = progress == null ? "" : total == null ? String.valueOf(progress) : progress + "/" + total;
    return message == null || message.isBlank() ? amount : amount.isEmpty() ? message : amount + " " + message;
  }
}
