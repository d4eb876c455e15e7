package dev.zaro.arrow.error;

/** Metadata is missing, malformed or unsupported: the message names the key and the field. */
public class MetadataException extends ZaroException {
  public MetadataException(String message) {
    super(message);
  }

  public MetadataException(String message, Throwable cause) {
    super(message, cause);
  }
}
