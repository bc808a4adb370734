package io.agentbus.model;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The model API a conversation talks to, and the shape tool definitions and tool results take
 * for it. {@link #id()} is the name used in configuration, JSON bodies and query parameters.
 */
public enum Provider {
  /** Anthropic Messages: tool_result content may hold text and image blocks. */
  ANTHROPIC(ModelOptions.ANTHROPIC),
  /** OpenAI Chat Completions: tool messages carry text only. */
  OPENAI(ModelOptions.OPENAI);

  private final String id;

  Provider(String id) {
    this.id = id;
  }

  /** @return the provider's name in configuration and on the wire, e.g. {@code "anthropic"} */
  public String id() {
    return id;
  }

  /**
   * @return the provider named {@code id}
   * @throws IllegalArgumentException naming the valid values when there is none
   */
  public static Provider of(String id) {
    Provider p = find(id);
    if (p == null) {
      throw new IllegalArgumentException("provider must be " + choices("'") + ", was '" + id + "'");
    }
    return p;
  }

  /** @return the provider named {@code id}, or {@code null} for null or an unknown name */
  public static Provider find(String id) {
    for (Provider p : values()) {
      if (p.id.equals(id)) {
        return p;
      }
    }
    return null;
  }

  /** @return the valid names for an error message, each in {@code quote}: {@code 'anthropic' or 'openai'} */
  public static String choices(String quote) {
    return Arrays.stream(values()).map(p -> quote + p.id + quote).collect(Collectors.joining(" or "));
  }
}
