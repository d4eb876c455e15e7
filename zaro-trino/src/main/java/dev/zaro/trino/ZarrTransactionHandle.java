package dev.zaro.trino;

import io.trino.spi.connector.ConnectorTransactionHandle;

/** The connector only reads: every transaction is the same. */
public enum ZarrTransactionHandle implements ConnectorTransactionHandle {
  INSTANCE
}
