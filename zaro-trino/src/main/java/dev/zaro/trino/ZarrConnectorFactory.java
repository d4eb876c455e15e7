package dev.zaro.trino;

import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import java.util.Map;

/** Makes the {@code zarr} connector of one catalog from its properties ({@link ZarrConfig}). */
public final class ZarrConnectorFactory implements ConnectorFactory {
  @Override
  public String getName() {
    return "zarr";
  }

  @Override
  public Connector create(
      String catalogName, Map<String, String> config, ConnectorContext context) {
    return new ZarrConnector(catalogName, ZarrConfig.parse(config));
  }
}
