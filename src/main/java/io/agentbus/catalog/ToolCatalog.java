package io.agentbus.catalog;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The in-process handle on the tool catalog: the current {@link CatalogSnapshot} plus the
 * last few versions, so a dispatcher can resolve names against the version the model saw.
 * Reads are one volatile load (no locks); only the {@link CatalogVerticle} publishes.
 */
public final class ToolCatalog implements Shareable {

  /** How many versions are kept by default (the current one included). */
  public static final int DEFAULT_RETAINED_VERSIONS = 16;
  private static final String SHARED_KEY = "agentbus.catalog";

  private record State(CatalogSnapshot current, List<CatalogSnapshot> recent) {
  }

  private final int retained;
  private final AtomicReference<State> state =
    new AtomicReference<>(new State(CatalogSnapshot.EMPTY, List.of(CatalogSnapshot.EMPTY)));

  /** A catalog that keeps {@link #DEFAULT_RETAINED_VERSIONS} versions. */
  public ToolCatalog() {
    this(DEFAULT_RETAINED_VERSIONS);
  }

  /** A catalog that keeps {@code retained} versions (at least 1). */
  public ToolCatalog(int retained) {
    if (retained < 1) {
      throw new IllegalArgumentException("retained must be >= 1");
    }
    this.retained = retained;
  }

  /** @return the catalog shared by everything deployed on this Vert.x instance */
  public static ToolCatalog shared(Vertx vertx) {
    Objects.requireNonNull(vertx, "'vertx' cannot be null");
    return vertx.sharedData().<String, ToolCatalog>getLocalMap(SHARED_KEY)
      .computeIfAbsent(SHARED_KEY, k -> new ToolCatalog());
  }

  /** @return the current snapshot (cheap: use it once per model request) */
  public CatalogSnapshot current() {
    return state.get().current();
  }

  /**
   * @return the snapshot with that version, or {@code null} when it is older than the
   *     retained versions (or was never published)
   */
  public CatalogSnapshot version(long version) {
    for (CatalogSnapshot s : state.get().recent()) {
      if (s.version() == version) {
        return s;
      }
    }
    return null;
  }

  /** Makes {@code snapshot} current. Called by the catalog verticle, from one context. */
  public void publish(CatalogSnapshot snapshot) {
    state.updateAndGet(old -> {
      List<CatalogSnapshot> recent = new ArrayList<>(retained);
      recent.add(snapshot);
      for (CatalogSnapshot s : old.recent()) {
        if (recent.size() < retained && s.version() != snapshot.version()) {
          recent.add(s);
        }
      }
      return new State(snapshot, List.copyOf(recent));
    });
  }
}
