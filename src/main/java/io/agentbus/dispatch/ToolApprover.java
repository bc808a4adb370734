package io.agentbus.dispatch;

import io.agentbus.catalog.CatalogEntry;
import io.agentbus.mcp.ToolApproval;
import io.vertx.core.Future;

/**
 * Decides whether a tool call of a batch waits for a person's approval, and waits for it. The
 * conversation running a turn supplies one per turn; the dispatcher asks it only after a
 * call's arguments passed validation, and a call it does not approve never reaches the server.
 */
public interface ToolApprover {

  /**
   * The approver of batches that nobody can approve (the {@code agentbus.dispatch} action):
   * a tool whose own or server's policy asks for approval is not called.
   */
  ToolApprover NONE = new ToolApprover() {
    @Override
    public boolean needsApproval(CatalogEntry entry) {
      return entry.asksApproval(ToolApproval.NEVER);
    }

    @Override
    public Future<String> approve(DispatchRequest.ToolUse use, CatalogEntry entry, long budgetMs) {
      return Future.succeededFuture("Tool '" + use.name() + "' needs a person's approval, which a dispatch on the event bus"
        + " cannot ask for, so the tool was not called.");
    }
  };

  /** @return whether a call of this tool waits for approval; cheap (no I/O, no allocation) */
  boolean needsApproval(CatalogEntry entry);

  /**
   * Waits for the decision on one call; never fails.
   *
   * @param budgetMs the most the call may take in all (the approval wait included)
   * @return {@code null} when approved, else why not (it becomes the call's {@code is_error} result)
   */
  Future<String> approve(DispatchRequest.ToolUse use, CatalogEntry entry, long budgetMs);
}
