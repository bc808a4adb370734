package io.agentbus.cli;

import io.vertx.core.json.JsonObject;
import java.io.PrintStream;

/** Prints one turn's events for a terminal chat: streamed text, tool calls, the end status. */
final class TurnPrinter {

  private final PrintStream out;
  private boolean printedText;

  TurnPrinter(PrintStream out) {
    this.out = out;
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

  /** @return e.g. {@code 3/10 copying} from a {@code tool_call_progress} event */
  static String progress(JsonObject e) {
    Object progress = e.getValue("progress");
    Object total = e.getValue("total");
    String message = e.getString("message");
    String amount = progress == null ? "" : total == null ? String.valueOf(progress) : progress + "/" + total;
    return message == null || message.isBlank() ? amount : amount.isEmpty() ? message : amount + " " + message;
  }
}
