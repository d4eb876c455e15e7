package dev.zaro.trino;

import io.trino.spi.ErrorCode;
import io.trino.spi.ErrorCodeSupplier;
import io.trino.spi.ErrorType;

/** The connector's error codes, in the range Trino leaves to connectors. */
@SuppressWarnings("ImmutableEnumChecker") // Trino's ErrorCode is immutable, not annotated so
public enum ZarrErrorCode implements ErrorCodeSupplier {
  /** The store cannot be opened or listed (a missing path, an unreachable endpoint). */
  ZARR_STORE_ERROR(0, ErrorType.EXTERNAL),
  /** A read failed: a corrupt or missing chunk, a store that went away, a timeout. */
  ZARR_READ_ERROR(1, ErrorType.EXTERNAL),
  /** A catalog property or a table the connector cannot serve. */
  ZARR_BAD_INPUT(2, ErrorType.USER_ERROR);

  private final ErrorCode code;

  ZarrErrorCode(int code, ErrorType type) {
    this.code = new ErrorCode(0x0A20_0000 + code, name(), type);
  }

  @Override
  public ErrorCode toErrorCode() {
    return code;
  }
}
