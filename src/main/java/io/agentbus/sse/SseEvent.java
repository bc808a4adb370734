package io.agentbus.sse;

/**
 * One dispatched Server-Sent Event.
 *
 * @param id the last event id in force when the event was dispatched (the WHATWG
 *     {@code lastEventId}): the value of this event's {@code id} field if it had one, otherwise the
 *     one inherited from an earlier event; {@code null} if the stream never sent an {@code id}
 * @param event the event type, {@code "message"} when the event had no (or an empty) {@code event}
 *     field
 * @param data the {@code data} lines joined by {@code "\n"}; empty when the event had no data
 * @param retry the reconnection time in milliseconds carried by this event's {@code retry} field,
 *     or {@code null} if it had none
 */
public record SseEvent(String id, String event, String data, Long retry) {

  /** The event type used when an event names none. */
  public static final String DEFAULT_EVENT = "message";

  /**
   * Canonical constructor; a {@code null} or empty event name becomes {@link #DEFAULT_EVENT} and a
   * {@code null} data becomes the empty string.
   */
  public SseEvent {
    event = event == null || event.isEmpty() ? DEFAULT_EVENT : event;
    data = data == null ? "" : data;
  }

  /**
   * @return {@code true} if the event carries no data (for example an MCP priming event that only
   *     sets an id)
   */
  public boolean isEmpty() {
    return data.isEmpty();
  }
}
