package io.agentbus.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * A plain-text table of rows: columns are (header, JSON key, number format); a column no row has
 * a value for is left out.
 */
final class Table {

  record Column(String header, String key, String format) {
  }

  final String title;
  final List<Column> columns;
  final List<Row> rows = new ArrayList<>();

  Table(String title, List<Column> columns) {
    this.title = title;
    this.columns = columns;
  }

  static Column col(String header, String key, String format) {
    return new Column(header, key, format);
  }

  Table add(Row row) {
    rows.add(row);
    return this;
  }

  /** @return the columns at least one row has a value for (all of them when there is no row) */
  List<Column> shown() {
    if (rows.isEmpty()) {
      return columns;
    }
    return columns.stream().filter(c -> rows.stream().anyMatch(r -> r.data.getValue(c.key()) != null)).toList();
  }

  String render() {
    List<Column> columns = shown();
    int[] widths = new int[columns.size()];
    List<String[]> cells = new ArrayList<>();
    String[] head = new String[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      head[i] = columns.get(i).header();
      widths[i] = head[i].length();
    }
    for (Row r : rows) {
      String[] line = new String[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        line[i] = r.get(columns.get(i).key(), columns.get(i).format());
        widths[i] = Math.max(widths[i], line[i].length());
      }
      cells.add(line);
    }
    StringBuilder sb = new StringBuilder(title).append('\n');
    append(sb, head, widths);
    for (String[] line : cells) {
      append(sb, line, widths);
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, String[] line, int[] widths) {
    for (int i = 0; i < line.length; i++) {
      String cell = line[i];
      sb.append(i == 0 ? "" : "  ");
      if (i == 0) {
        sb.append(cell).append(" ".repeat(widths[i] - cell.length()));
      } else {
        sb.append(" ".repeat(widths[i] - cell.length())).append(cell);
      }
    }
    sb.append('\n');
  }
}
