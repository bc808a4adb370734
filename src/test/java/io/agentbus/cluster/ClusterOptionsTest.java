package io.agentbus.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import io.agentbus.cluster.ClusterOptions.Role;
import io.agentbus.config.AgentConfig;
import io.agentbus.options.ConfigException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code cluster} in {@code conf/agent.json}, {@code --roles}, and the Hazelcast member configuration built from them. */
class ClusterOptionsTest {

  @Test
  void theDefaultsJoinOnLoopbackWithEveryRole() {
    ClusterOptions o = new ClusterOptions(new JsonObject());
    assertFalse(o.isEnabled());
    assertEquals("agentbus", o.getName());
    assertEquals("127.0.0.1", o.getHost());
    assertEquals(5701, o.getPort());
    assertEquals(List.of("127.0.0.1"), o.getMembers());
    assertEquals(Set.of(Role.HTTP, Role.CONVERSATION, Role.MCP), o.getRoles());
    assertEquals(5_000, o.getFailureDetectionMs());
    assertTrue(o.effectiveNodeName().startsWith("127.0.0.1:"), o.effectiveNodeName());
    assertEquals(o.toJson(), new ClusterOptions(o.toJson()).toJson(), "round trip");
  }

  @Test
  void everyFieldIsRead() {
    ClusterOptions o = new ClusterOptions(new JsonObject().put("enabled", true).put("name", "prod").put("host", "10.0.0.5")
      .put("port", 6000).put("publicHost", "203.0.113.7").put("members", new JsonArray().add("10.0.0.5").add("10.0.0.6:6000"))
      .put("roles", new JsonArray().add("mcp")).put("nodeName", "mcp-1").put("failureDetectionMs", 8000));
    assertTrue(o.isEnabled());
    assertEquals("prod", o.getName());
    assertEquals(6000, o.getPort());
    assertEquals("203.0.113.7", o.getPublicHost());
    assertEquals(List.of("10.0.0.5", "10.0.0.6:6000"), o.getMembers());
    assertEquals(Set.of(Role.MCP), o.getRoles());
    assertEquals("mcp-1", o.effectiveNodeName());
  }

  @Test
  void rolesFromTheCommandLine() {
    assertEquals(Set.of(Role.HTTP, Role.CONVERSATION), ClusterOptions.parseRoles("http, conversation"));
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> ClusterOptions.parseRoles("http,web"));
    assertEquals("unknown role 'web' (roles are http, conversation, mcp)", unknown.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ClusterOptions.parseRoles(" , "));
  }

  @Test
  void badValuesInTheAgentConfigNameTheField() {
    ConfigException port = assertThrows(ConfigException.class,
      () -> AgentConfig.fromJson(new JsonObject().put("cluster", new JsonObject().put("port", 70000)), Map.of()));
    assertTrue(port.getMessage().contains("cluster"), port.getMessage());
    ConfigException role = assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject()
      .put("cluster", new JsonObject().put("roles", new JsonArray().add("everything"))), Map.of()));
    assertTrue(role.getMessage().contains("unknown role 'everything'"), role.getMessage());
    ConfigException members = assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject()
      .put("cluster", new JsonObject().put("members", new JsonArray())), Map.of()));
    assertTrue(members.getMessage().contains("members"), members.getMessage());
    ConfigException detection = assertThrows(ConfigException.class, () -> AgentConfig.fromJson(new JsonObject()
      .put("cluster", new JsonObject().put("failureDetectionMs", 10)), Map.of()));
    assertTrue(detection.getMessage().contains("failureDetectionMs"), detection.getMessage());
  }

  @Test
  void theMemberJoinsOverTcpIpOnlyAndNeverCallsHome() throws Exception {
    Config config = HazelcastCluster.config(new ClusterOptions().setName("c1").setPort(6100)
      .setMembers(List.of("127.0.0.1:6100", "127.0.0.1:6101")).setFailureDetectionMs(3_000));
    assertEquals("c1", config.getClusterName());
    JoinConfig join = config.getNetworkConfig().getJoin();
    assertFalse(join.getMulticastConfig().isEnabled());
    assertFalse(join.getAutoDetectionConfig().isEnabled());
    assertTrue(join.getTcpIpConfig().isEnabled());
    assertEquals(List.of("127.0.0.1:6100", "127.0.0.1:6101"), join.getTcpIpConfig().getMembers());
    assertEquals(6100, config.getNetworkConfig().getPort());
    assertEquals("false", config.getProperty("hazelcast.phone.home.enabled"));
    assertEquals("3", config.getProperty("hazelcast.max.no.heartbeat.seconds"));
    assertEquals("127.0.0.1", config.getProperty("hazelcast.local.localAddress"));
    assertTrue(config.getMultiMapConfigs().containsKey("__vertx.subs"), "the Vert.x subscriptions map");
  }

  @Test
  void aHazelcastFileReplacesTheNetworkSettings(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("hz.yaml");
    Files.writeString(file, String.join("\n", "hazelcast:", "  cluster-name: from-file", "  network:", "    join:",
      "      multicast:", "        enabled: false", "      tcp-ip:", "        enabled: true", "        member-list:",
      "          - 10.1.1.1", ""));
    Config config = HazelcastCluster.config(new ClusterOptions().setConfigFile(file.toString()).setName("ignored"));
    assertEquals("from-file", config.getClusterName());
    assertEquals(List.of("10.1.1.1"), config.getNetworkConfig().getJoin().getTcpIpConfig().getMembers());
    assertEquals("false", config.getProperty("hazelcast.phone.home.enabled"));
    assertTrue(config.getMultiMapConfigs().containsKey("__vertx.subs"), "added when the file leaves it out");
  }

  @Test
  void aMissingHazelcastFileIsAClearError() {
    var failed = HazelcastCluster.start(new io.vertx.core.VertxOptions(), new ClusterOptions().setConfigFile("/nonexistent/hz.xml"));
    assertTrue(failed.failed());
    assertTrue(failed.cause().getMessage().startsWith("cluster.configFile '/nonexistent/hz.xml' cannot be read"),
      failed.cause().getMessage());
  }
}
