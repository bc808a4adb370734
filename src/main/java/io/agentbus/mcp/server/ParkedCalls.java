package io.agentbus.mcp.server;

import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.function.Consumer;

/**
 * Calls waiting for a connection to be READY, in arrival order, each until its own deadline,
 * at most {@code max} of them. Confined to the owning verticle's context.
 *
 * @param <C> the call
 */
final class ParkedCalls<C> {

  private static final class Parked<C> {
    final C call;
    long timer;

    Parked(C call) {
      this.call = call;
    }
  }

  private final Vertx vertx;
  private final int max;
  private final LinkedHashSet<Parked<C>> waiting = new LinkedHashSet<>();

  ParkedCalls(Vertx vertx, int max) {
    this.vertx = vertx;
    this.max = max;
  }

  /**
   * Parks {@code call} for at most {@code waitMs}; {@code onTimeout} gets it if it is still
   * parked then.
   *
   * @return false (and nothing is parked) when {@code max} calls already wait
   */
  boolean park(C call, long waitMs, Consumer<C> onTimeout) {
    if (waiting.size() >= max) {
      return false;
    }
    Parked<C> p = new Parked<>(call);
    p.timer = vertx.setTimer(Math.max(1, waitMs), t -> {
      if (waiting.remove(p)) {
        onTimeout.accept(call);
      }
    });
    waiting.add(p);
    return true;
  }

  /** Hands every parked call to {@code each}, in arrival order, and forgets them (their timers too). */
  void drain(Consumer<C> each) {
    List<Parked<C>> all = new ArrayList<>(waiting);
    waiting.clear();
    for (Parked<C> p : all) {
      vertx.cancelTimer(p.timer);
      each.accept(p.call);
    }
  }

  /** @return how many wait */
  int size() {
    return waiting.size();
  }
}
