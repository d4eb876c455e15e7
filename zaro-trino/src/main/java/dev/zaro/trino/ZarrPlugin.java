package dev.zaro.trino;

import io.trino.spi.Plugin;
import io.trino.spi.connector.ConnectorFactory;
import java.util.List;

/**
 * The Trino plugin: one connector, {@code zarr}. Trino finds it through {@code
 * META-INF/services/io.trino.spi.Plugin} in the plugin directory (docs/trino.md).
 */
public final class ZarrPlugin implements Plugin {
  @Override
  public Iterable<ConnectorFactory> getConnectorFactories() {
    return List.of(new ZarrConnectorFactory());
  }
}
