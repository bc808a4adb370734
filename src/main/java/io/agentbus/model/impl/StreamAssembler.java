package io.agentbus.model.impl;

import io.agentbus.model.ModelResponse;
import io.agentbus.sse.SseEvent;

/** Turns one provider's SSE events into stream events and, at the end, a complete reply. */
public interface StreamAssembler {

  /**
   * Handles one SSE event.
   *
   * @param event the event
   * @throws io.agentbus.model.ModelException for an {@code error} event or an unreadable payload
   */
  void handle(SseEvent event);

  /**
   * Builds the reply once the body ended.
   *
   * @return the assembled reply
   * @throws io.agentbus.model.ModelException if the stream ended before the reply was complete
   */
  ModelResponse finish();
}
