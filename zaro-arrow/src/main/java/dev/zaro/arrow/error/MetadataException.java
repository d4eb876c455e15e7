package dev.zaro.arrow.error;

/** Metadata is missing, malformed or unsupported: the message names the key and the field. */
public class MetadataException extends ZaroException {
  /** An invalid-metadata error. */
  public MetadataException(String message) {
    super(ErrorKind.CORRUPT, message);
  }

  /** An error of {@code kind}. */
  public MetadataException(ErrorKind kind, String message) {
    super(kind, message);
  }

  /** An invalid-metadata error with its cause. */
  public MetadataException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.CORRUPT,
        message,
        cause);
  }

  /** An error of {@code kind} with its cause. */
  public MetadataException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
