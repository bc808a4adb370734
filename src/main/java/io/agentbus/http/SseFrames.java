package io.agentbus.http;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;

/**
 * Writes one response's Server-Sent Event frames, coalesced per event-loop pass: frames sent
 * while a pass runs (and while the tasks queued before its flush run) leave in one write,
 * instead of one write system call, one flush, per frame. On an idle loop a frame still
 * leaves at once (its flush is the next task); under load the frames of several events share
 * a write. Touched only on its context.
 */
final class SseFrames {

  private final Context context;
  private final HttpServerResponse response;
  private Buffer pending;

  /** @param context the context the frames are sent on (the response's) */
  SseFrames(Context context, HttpServerResponse response) {
    this.context = context;
    this.response = response;
  }

  /** Queues {@code frame} for this pass' write; dropped once the response is closed or ended. */
  void send(String frame) {
    if (response.closed() || response.ended()) {
      return;
    }
    if (pending == null) {
      pending = Buffer.buffer(frame.length() + 64);
      context.runOnContext(v -> flush());
    }
    pending.appendString(frame);
  }

  /** @return whether the response's write queue is full (the frames of this pass, at most, are not in it yet) */
  boolean writeQueueFull() {
    return response.writeQueueFull();
  }

  /** Ends the response, with the frames not yet written as its last chunk. */
  void end() {
    Buffer last = pending;
    pending = null;
    if (response.closed() || response.ended()) {
      return;
    }
    if (last == null) {
      response.end();
    } else {
      response.end(last);
    }
  }

  private void flush() {
    Buffer frames = pending;
    pending = null;
    if (frames != null && !response.closed() && !response.ended()) {
      response.write(frames);
    }
  }
}
