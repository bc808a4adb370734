package io.agentbus.dispatch;

/** The model API a tool result is shaped for. */
public enum Provider {
  /** Anthropic Messages: tool_result content may hold text and image blocks. */
  ANTHROPIC,
  /** OpenAI Chat Completions: tool messages carry text only. */
  OPENAI;

  /** @return the provider for {@code "anthropic"} / {@code "openai"}, or {@code null} */
  public static Provider of(String name) {
    if ("anthropic".equals(name)) {
      return ANTHROPIC;
    }
    if ("openai".equals(name)) {
      return OPENAI;
    }
    return null;
  }
}
