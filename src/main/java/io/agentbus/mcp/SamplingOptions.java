package io.agentbus.mcp;

import io.vertx.core.json.JsonObject;

/**
 * Whether a server may ask for model completions ({@code sampling/createMessage}) and within
 * which limits: the {@code sampling} object of its mcp.json entry.
 *
 * @param enabled whether the {@code sampling} capability is declared at all (default false)
 * @param maxTokens the most {@code maxTokens} one request may ask for (a larger one is lowered to it)
 * @param maxCallsPerTurn sampling requests the server may make during one turn of a conversation;
 *     more are refused
 * @param approval {@code never}: requests run without asking; {@code always}: each one waits for
 *     the conversation's user to approve it, as a tool call does (see the README's "Tool approvals")
 */
public record SamplingOptions(boolean enabled, int maxTokens, int maxCallsPerTurn, String approval) {

  /** {@code sampling.maxTokens} when not set. */
  public static final int DEFAULT_MAX_TOKENS = 1024;
  /** {@code sampling.maxCallsPerTurn} when not set. */
  public static final int DEFAULT_MAX_CALLS_PER_TURN = 3;
  /** Sampling off. */
  public static final SamplingOptions DISABLED = new SamplingOptions(false, DEFAULT_MAX_TOKENS, DEFAULT_MAX_CALLS_PER_TURN, "never");

  /** @throws IllegalArgumentException for a limit below 1 or an approval other than {@code never} or {@code always} */
  public SamplingOptions {
    if (maxTokens < 1 || maxCallsPerTurn < 1) {
      throw new IllegalArgumentException("sampling.maxTokens and sampling.maxCallsPerTurn must be >= 1");
    }
    if (!"never".equals(approval) && !"always".equals(approval)) {
      throw new IllegalArgumentException("sampling.approval must be \"never\" or \"always\"");
    }
  }

  /** @return whether each request waits for the user's approval */
  public boolean asksApproval() {
    return "always".equals(approval);
  }

  /** @return the mcp.json shape */
  public JsonObject toJson() {
    return new JsonObject().put("enabled", enabled).put("maxTokens", maxTokens).put("maxCallsPerTurn", maxCallsPerTurn)
      .put("approval", approval);
  }
}
