package dev.zaro.arrow.error;

/** A store could not be opened or read: the message names the store and the key. */
public class StoreException extends ZaroException {
  public StoreException(String message) {
    super(ErrorKind.IO, message);
  }

  public StoreException(ErrorKind kind, String message) {
    super(kind, message);
  }

  public StoreException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.IO,
        message,
        cause);
  }

  public StoreException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
