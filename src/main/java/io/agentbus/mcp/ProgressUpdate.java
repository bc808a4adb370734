package io.agentbus.mcp;

/**
 * One {@code notifications/progress} update for a running request.
 *
 * @param progress monotonically increasing progress value
 * @param total the total, when the server knows it, else {@code null}
 * @param message optional human-readable message
 */
public record ProgressUpdate(double progress, Double total, String message) {
}
