package io.agentbus.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MultiMapConfig;
import com.hazelcast.config.NetworkConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.File;
import java.io.FileNotFoundException;

/**
 * The only class that names Hazelcast: builds the member configuration from {@link
 * ClusterOptions} and starts a clustered Vert.x with the Hazelcast cluster manager. Nothing loads
 * it unless {@code serve --cluster} runs.
 */
final class HazelcastCluster {

  private HazelcastCluster() {
  }

  static Future<Vertx> start(VertxOptions vertxOptions, ClusterOptions cluster) {
    Config config;
    try {
      config = config(cluster);
    } catch (FileNotFoundException | RuntimeException e) {
      return Future.failedFuture(new IllegalArgumentException("cluster.configFile '" + cluster.getConfigFile()
        + "' cannot be read: " + e.getMessage(), e));
    }
    VertxOptions options = new VertxOptions(vertxOptions);
    EventBusOptions bus = options.getEventBusOptions().setHost(cluster.getHost()).setPort(0);
    if (cluster.getPublicHost() != null) {
      bus.setClusterPublicHost(cluster.getPublicHost());
    }
    return Vertx.builder().with(options).withClusterManager(new HazelcastClusterManager(config)).buildClustered();
  }

  /** @return the member configuration: the file when one is given, else built from the options */
  static Config config(ClusterOptions cluster) throws FileNotFoundException {
    Config config = cluster.getConfigFile() != null ? Config.loadFromFile(new File(cluster.getConfigFile())) : ConfigUtil.loadConfig();
    // what the Vert.x cluster manager needs, also when a user's file leaves it out
    if (!config.getMultiMapConfigs().containsKey("__vertx.subs")) {
      config.addMultiMapConfig(new MultiMapConfig("__vertx.subs").setBackupCount(1)
        .setValueCollectionType(MultiMapConfig.ValueCollectionType.SET));
    }
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.logging.type", "slf4j");
    // serve's own shutdown hook drains the turns first, then leaves the cluster
    config.setProperty("hazelcast.shutdownhook.enabled", "false");
    if (cluster.getConfigFile() != null) {
      return config;
    }
    config.setClusterName(cluster.getName());
    long seconds = Math.max(1, (cluster.getFailureDetectionMs() + 999) / 1000);
    config.setProperty("hazelcast.max.no.heartbeat.seconds", String.valueOf(seconds));
    config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
    config.setProperty("hazelcast.wait.seconds.before.join", "1");
    if (!"0.0.0.0".equals(cluster.getHost())) {
      config.setProperty("hazelcast.local.localAddress", cluster.getHost());
      config.setProperty("hazelcast.socket.bind.any", "false");
    }
    NetworkConfig network = config.getNetworkConfig().setPort(cluster.getPort()).setPortAutoIncrement(true);
    if (cluster.getPublicHost() != null) {
      network.setPublicAddress(cluster.getPublicHost());
    }
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(cluster.getMembers());
    return config;
  }
}
