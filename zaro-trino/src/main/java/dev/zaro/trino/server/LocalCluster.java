package dev.zaro.trino.server;

import dev.zaro.trino.ZarrPlugin;
import io.trino.Session;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.TestingSession;
import java.util.HashMap;
import java.util.Map;

/**
 * A Trino cluster on this machine, assembled from Trino's Maven jars (no server tarball): one
 * coordinator and {@code workers} workers, each a full Trino server with its own HTTP server,
 * talking to the others over real HTTP on loopback as a production cluster does (discovery, task
 * updates, exchanges). The coordinator schedules no splits on itself, so every split runs on a
 * worker. The {@code zarr} plugin is installed and catalog {@code zarr} made over the store; the
 * session's default schema is the root group's, {@code default}.
 */
public final class LocalCluster {
  private LocalCluster() {}

  /**
   * Starts the cluster; the caller closes it (which stops every node).
   *
   * @param catalog the {@code zarr} catalog's properties ({@code zarr.store} and any other)
   * @param port the coordinator's HTTP port (0: any free port)
   */
  public static DistributedQueryRunner start(Map<String, String> catalog, int workers, int port)
      throws Exception {
    if (workers < 1) {
      throw new IllegalArgumentException(
          "zarr: a cluster needs at least one worker, not " + workers);
    }
    Session session =
        TestingSession.testSessionBuilder().setCatalog("zarr").setSchema("default").build();
    Map<String, String> coordinator = new HashMap<>();
    coordinator.put("node-scheduler.include-coordinator", "false");
    if (port > 0) {
      coordinator.put("http-server.http.port", Integer.toString(port));
    }
    DistributedQueryRunner runner =
        DistributedQueryRunner.builder(session)
            .setWorkerCount(workers)
            .setCoordinatorProperties(coordinator)
            .build();
    try {
      runner.installPlugin(new ZarrPlugin());
      runner.createCatalog("zarr", "zarr", catalog);
      return runner;
    } catch (RuntimeException e) {
      runner.close();
      throw e;
    }
  }
}
