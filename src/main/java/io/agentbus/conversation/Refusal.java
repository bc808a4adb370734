package io.agentbus.conversation;

import io.agentbus.bus.FailureCodes;
import io.agentbus.bus.ReportedFailure;
import io.agentbus.store.StoreException;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;

/**
 * A failure the conversation service replies with: a code, a message, and whether the message
 * is meant for the end caller even as a 500 (a {@link ReportedFailure}). Built for the cases
 * the service refuses (an unknown conversation, a store failure) and sent by {@link #reply}.
 */
final class Refusal extends RuntimeException {

  final int code;
  final boolean reported;

  Refusal(int code, String message) {
    this(code, message, false);
  }

  Refusal(int code, String message, boolean reported) {
    super(message, null, false, false);
    this.code = code;
    this.reported = reported;
  }

  /** @return the answer for a conversation that does not exist (or is another tenant's) */
  static Refusal notFound(String id) {
    return new Refusal(FailureCodes.NOT_FOUND, "no conversation '" + id + "'");
  }

  /** @return a store failure as the caller should see it */
  static Refusal ofStore(String id, Throwable err) {
    if (err instanceof Refusal rf) {
      return rf;
    }
    if (!(err instanceof StoreException se)) {
      return new Refusal(FailureCodes.INTERNAL, String.valueOf(err.getMessage()), false);
    }
    return switch (se.kind()) {
      case NOT_FOUND -> notFound(id);
      case CONFLICT -> new Refusal(FailureCodes.CONFLICT, "conversation '" + id
        + "' was changed by another writer; nothing of this request was saved: send it again");
      case UNAVAILABLE, TIMEOUT -> new Refusal(FailureCodes.UNAVAILABLE, "the conversation store is unavailable ("
        + se.getMessage() + "); conversation '" + id + "' is unchanged: retry later");
      case INVALID -> new Refusal(FailureCodes.BAD_REQUEST, se.getMessage());
      case CORRUPT -> new Refusal(FailureCodes.INTERNAL, "conversation '" + id + "' cannot be loaded: "
        + se.getMessage(), true);
      case FAILED -> new Refusal(FailureCodes.INTERNAL, "the conversation store failed: " + se.getMessage(), true);
    };
  }

  /** Fails {@code msg} with {@code err}: a Refusal as it says, anything else as an internal error. */
  static void reply(Message<JsonObject> msg, Throwable err) {
    if (err instanceof Refusal rf) {
      if (rf.reported) {
        msg.reply(new ReportedFailure(rf.code, rf.getMessage()));
      } else {
        msg.fail(rf.code, rf.getMessage());
      }
    } else {
      msg.fail(FailureCodes.INTERNAL, String.valueOf(err.getMessage()));
    }
  }
}
