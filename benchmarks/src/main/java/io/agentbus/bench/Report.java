package io.agentbus.bench;

import io.vertx.core.json.JsonArray;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --report DIR}: one self-contained HTML page ({@code DIR/index.html}) with each
 * scenario's table and, per scenario and C, the latency percentile curves of every subject
 * as inline SVG (x: percentile on a log scale, y: latency in ms on a log scale), plus the raw
 * JSON lines. No script, no external resource.
 */
final class Report {

  private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
  private static final int W = 720;
  private static final int H = 320;
  private static final int PAD = 48;
  private static final double MAX_X = 5; // 99.999th percentile

  private Report() {
  }

  static Path write(Path dir, Settings s, Map<String, List<Row>> results) throws IOException {
    Files.createDirectories(dir);
    StringBuilder h = new StringBuilder();
    h.append("<!doctype html><html><head><meta charset=\"utf-8\"><title>Agentbus benchmarks</title><style>")
      .append("body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:13px}")
      .append("td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}td:first-child,th:first-child{text-align:left}")
      .append("pre{font-size:11px;white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:8px}svg{margin:8px 16px 8px 0}")
      .append("</style></head><body>\n<h1>Agentbus benchmarks</h1>\n<p>")
      .append(esc(String.format(Locale.ROOT, "%s%s on Java %s, %d cores, %s.", s.scenario, s.smoke ? " (smoke)" : "",
        Runtime.version(), Runtime.getRuntime().availableProcessors(), Instant.now())))
      .append(" See benchmarks/README.md for what each figure means.</p>\n");
    for (Map.Entry<String, List<Row>> e : results.entrySet()) {
      h.append("<h2>").append(esc(e.getKey())).append("</h2>\n");
      h.append(html(Tables.of(e.getKey(), e.getValue())));
      Map<Integer, List<Row>> byC = new LinkedHashMap<>();
      for (Row r : e.getValue()) {
        if (!r.curve.isEmpty()) {
          byC.computeIfAbsent(r.data.getInteger("c"), c -> new ArrayList<>()).add(r);
        }
      }
      for (Map.Entry<Integer, List<Row>> g : byC.entrySet()) {
        h.append(svg(e.getKey() + ", C = " + g.getKey(), g.getValue()));
      }
      h.append("<pre>");
      e.getValue().forEach(r -> h.append(esc(r.data.encode())).append('\n'));
      h.append("</pre>\n");
    }
    h.append("</body></html>\n");
    Path page = dir.resolve("index.html");
    Files.writeString(page, h, StandardCharsets.UTF_8);
    return page;
  }

  private static String html(Table t) {
    StringBuilder h = new StringBuilder("<table><tr>");
    List<Table.Column> columns = t.shown();
    columns.forEach(c -> h.append("<th>").append(esc(c.header())).append("</th>"));
    h.append("</tr>\n");
    for (Row r : t.rows) {
      h.append("<tr>");
      columns.forEach(c -> h.append("<td>").append(esc(r.get(c.key(), c.format()))).append("</td>"));
      h.append("</tr>\n");
    }
    return h.append("</table>\n").toString();
  }

  private static String svg(String title, List<Row> rows) {
    double minY = Double.MAX_VALUE;
    double maxY = 0;
    for (Row r : rows) {
      for (Object o : r.curve) {
        double ms = ((JsonArray) o).getDouble(1);
        minY = Math.min(minY, Math.max(ms, 0.001));
        maxY = Math.max(maxY, ms);
      }
    }
    double lo = Math.floor(Math.log10(minY));
    double hi = Math.max(lo + 1, Math.ceil(Math.log10(Math.max(maxY, 0.001))));
    StringBuilder g = new StringBuilder();
    g.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      + "font-size=\"11\" font-family=\"sans-serif\">", W, H + 56));
    g.append("<text x=\"").append(PAD).append("\" y=\"14\" font-weight=\"bold\">").append(esc(title))
      .append(" — latency by percentile</text>");
    for (int d = 0; d <= MAX_X; d++) {
      double x = xOf(d);
      String label = switch (d) { case 0 -> "0%"; case 1 -> "90%"; case 2 -> "99%"; case 3 -> "99.9%"; case 4 -> "99.99%"; default -> "99.999%"; };
      g.append(line(x, yOf(lo, lo, hi), x, yOf(hi, lo, hi), "#eee"))
        .append(text(x - 12, H + 6, label));
    }
    for (double e = lo; e <= hi; e++) {
      double y = yOf(e, lo, hi);
      g.append(line(PAD, y, W - 10, y, "#eee")).append(text(4, y + 4, fmt(Math.pow(10, e)) + " ms"));
    }
    int i = 0;
    for (Row r : rows) {
      String color = COLORS[i % COLORS.length];
      StringBuilder pts = new StringBuilder();
      for (Object o : r.curve) {
        JsonArray p = (JsonArray) o;
        double pct = Math.min(p.getDouble(0), 99.999);
        double x = xOf(Math.min(MAX_X, -Math.log10(1 - pct / 100.0)));
        double y = yOf(Math.log10(Math.max(p.getDouble(1), 0.001)), lo, hi);
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      g.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color).append("\" points=\"")
        .append(pts).append("\"/>");
      g.append("<text x=\"").append(PAD + 10 + 130 * (i % 5)).append("\" y=\"").append(H + 26 + 14 * (i / 5))
        .append("\" fill=\"").append(color)
        .append("\">").append(esc(r.data.getString("subject") + (r.data.containsKey("rep") ? " #" + r.data.getValue("rep") : "")))
        .append("</text>");
      i++;
    }
    return g.append("</svg>\n").toString();
  }

  private static double xOf(double decades) {
    return PAD + (W - PAD - 40) * decades / MAX_X;
  }

  private static double yOf(double log, double lo, double hi) {
    return 24 + (H - 24) * (1 - (log - lo) / (hi - lo));
  }

  private static String line(double x1, double y1, double x2, double y2, String color) {
    return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x1, y1, x2, y2, color);
  }

  private static String text(double x, double y, String s) {
    return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\">%s</text>", x, y, esc(s));
  }

  private static String fmt(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%s", v);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
