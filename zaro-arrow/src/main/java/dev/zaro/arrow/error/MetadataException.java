package dev.zaro.arrow.error;

/** Metadata is missing, malformed or unsupported: the message names the key and the field. */
public class MetadataException extends ZaroException {
  public MetadataException(String message) {
    super(ErrorKind.CORRUPT, message);
  }

  public MetadataException(ErrorKind kind, String message) {
    super(kind, message);
  }

  public MetadataException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.CORRUPT,
        message,
        cause);
  }

  public MetadataException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
