package io.agentbus.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * One measured run: its figures as a flat JSON object (printed as one line with {@code --json})
 * and, for the report, its latency percentile curve.
 */
final class Row {

  final JsonObject data;
  /** [[percentile, ms], ...] for the report's plot; empty when there is no latency. */
  final JsonArray curve;

  Row(JsonObject data, JsonArray curve) {
    this.data = data;
    this.curve = curve;
  }

  /** The standard figures of a load phase. */
  static Row of(String scenario, String subject, int c, LoadDriver.Result r, double units) {
    Histogram h = r.latencyUs();
    double seconds = r.cost().wallNanos() / 1e9;
    JsonObject d = new JsonObject().put("bench", scenario).put("subject", subject).put("c", c)
      .put("completed", r.completed()).put("failed", r.failed()).put("seconds", round(seconds, 3))
      .put("perSecond", round(r.completed() * units / seconds, 1))
      .put("p50Ms", ms(h.getValueAtPercentile(50))).put("p90Ms", ms(h.getValueAtPercentile(90)))
      .put("p99Ms", ms(h.getValueAtPercentile(99))).put("p999Ms", ms(h.getValueAtPercentile(99.9)))
      .put("maxMs", ms(h.getMaxValue())).put("cpuSeconds", round(r.cost().cpuNanos() / 1e9, 3))
      .put("cpuMsPerUnit", r.completed() == 0 ? null : round(r.cost().cpuNanos() / 1e6 / (r.completed() * units), 4))
      .put("cpuUtilization", round(r.cost().cpuNanos() / (double) r.cost().wallNanos(), 3))
      .put("gcCount", r.cost().gcCount() < 0 ? null : r.cost().gcCount()).put("gcMs", r.cost().gcMillis() < 0 ? null : r.cost().gcMillis())
      .put("childCpuMsPerUnit", r.completed() == 0 ? null : round(r.childCpuNanos() / 1e6 / (r.completed() * units), 4));
    if (r.cost().driverCpuNanos() > 0) {
      d.put("driverCpuMsPerUnit", r.completed() == 0 ? null : round(r.cost().driverCpuNanos() / 1e6 / (r.completed() * units), 4));
    }
    if (r.firstError() != null) {
      d.put("firstError", r.firstError());
    }
    return new Row(d, curve(h));
  }

  static JsonArray curve(Histogram h) {
    JsonArray points = new JsonArray();
    if (h.getTotalCount() == 0) {
      return points;
    }
    for (HistogramIterationValue v : h.percentiles(5)) {
      double p = v.getPercentileLevelIteratedTo();
      if (p >= 100.0) {
        break;
      }
      points.add(new JsonArray().add(round(p, 4)).add(ms(v.getValueIteratedTo())));
    }
    points.add(new JsonArray().add(100.0).add(ms(h.getMaxValue())));
    return points;
  }

  static double ms(long micros) {
    return round(micros / 1000.0, 3);
  }

  static Double round(double v, int digits) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return null;
    }
    double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }

  String get(String key, String format) {
    Object v = data.getValue(key);
    if (v == null) {
      return "-";
    }
    return v instanceof Number num && format != null ? String.format(Locale.ROOT, format, num.doubleValue()) : String.valueOf(v);
  }
}
