package dev.zaro.arrow.error;

/** A selection string is malformed or out of range for the array it is applied to. */
public class SelectionException extends ZaroException {
  /** An invalid selection ({@link ErrorKind#INVALID_ARGUMENT}). */
  public SelectionException(String message) {
    super(ErrorKind.INVALID_ARGUMENT, message);
  }

  /** An error of {@code kind}. */
  public SelectionException(ErrorKind kind, String message) {
    super(kind, message);
  }
}
