package dev.zaro.arrow.error;

/** A store could not be opened or read: the message names the store and the key. */
public class StoreException extends ZaroException {
  /** An I/O error ({@link ErrorKind#IO}). */
  public StoreException(String message) {
    super(ErrorKind.IO, message);
  }

  /** An error of {@code kind}. */
  public StoreException(ErrorKind kind, String message) {
    super(kind, message);
  }

  /** An I/O error with its cause. */
  public StoreException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.IO,
        message,
        cause);
  }

  /** An error of {@code kind} with its cause. */
  public StoreException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
