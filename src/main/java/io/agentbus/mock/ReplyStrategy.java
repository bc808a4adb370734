package io.agentbus.mock;

/** Decides what the mock model answers to a validated conversation. */
public interface ReplyStrategy {

  /**
   * @param conversation the request, in canonical shape
   * @return the reply
   */
  MockReply reply(MockConversation conversation);

  /**
   * @param options the mock options
   * @return the strategy of {@link MockModelOptions#getMode()}
   */
  static ReplyStrategy of(MockModelOptions options) {
    return switch (options.getMode()) {
      case MockModelOptions.MODE_SCRIPT -> new ScriptStrategy(options.getScript());
      case MockModelOptions.MODE_RULES -> new RulesStrategy(options.getMaxParallelTools());
      default -> new DemoStrategy();
    };
  }
}
