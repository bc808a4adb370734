package io.agentbus.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/**
 * A failure reply whose message is meant for the end caller whatever its code, including
 * {@link FailureCodes#INTERNAL}, whose messages are otherwise kept in the log: for example a
 * conversation whose stored history cannot be read back. Reply with it as the message body
 * ({@code msg.reply(new ReportedFailure(...))}); a local requester receives it as the failure.
 */
public final class ReportedFailure extends ReplyException {

  private static final long serialVersionUID = 1L;

  /**
   * @param failureCode one of {@link FailureCodes}
   * @param message what the caller is told: never a secret
   */
  public ReportedFailure(int failureCode, String message) {
    super(ReplyFailure.RECIPIENT_FAILURE, failureCode, message);
  }
}
