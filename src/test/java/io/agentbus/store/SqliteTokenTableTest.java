package io.agentbus.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;

/** OAuth tokens in the {@code sqlite} store's file. */
class SqliteTokenTableTest extends TokenTableContract {

  @TempDir
  Path dir;

  private Path file() {
    return dir.resolve("data/agentbus.db");
  }

  @Override
  protected StoreOptions options() {
    return new StoreOptions().setType(StoreOptions.Type.SQLITE).setPath(file().toString());
  }

  private Connection jdbc() throws Exception {
    return DriverManager.getConnection("jdbc:sqlite:" + file());
  }

  @Override
  protected List<RawRow> rawRows() throws Exception {
    List<RawRow> rows = new ArrayList<>();
    try (Connection c = jdbc(); Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT tenant, server_key, sealed FROM oauth_tokens ORDER BY tenant, server_key")) {
      while (rs.next()) {
        rows.add(new RawRow(rs.getString(1), rs.getString(2), rs.getBytes(3)));
      }
    }
    return rows;
  }

  @Override
  protected String rawFiles() throws Exception {
    StringBuilder all = new StringBuilder();
    for (String suffix : new String[] {"", "-wal"}) {
      Path f = Path.of(file() + suffix);
      if (Files.exists(f)) {
        all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
      }
    }
    return all.toString();
  }

  @Override
  protected void copyRow(String fromTenant, String toTenant, String serverKey) throws Exception {
    try (Connection c = jdbc(); PreparedStatement ps = c.prepareStatement("INSERT INTO oauth_tokens (tenant, server_key, sealed, "
      + "updated_at) SELECT ?, server_key, sealed, updated_at FROM oauth_tokens WHERE tenant = ? AND server_key = ?")) {
      ps.setString(1, toTenant);
      ps.setString(2, fromTenant);
      ps.setString(3, serverKey);
      assertEquals(1, ps.executeUpdate());
    }
  }
}
