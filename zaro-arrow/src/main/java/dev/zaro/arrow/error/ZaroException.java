package dev.zaro.arrow.error;

/**
 * The one unchecked base of every error zaro raises on purpose. Messages name what
 * went wrong and where: the store key, the metadata field, the codec, the chunk index.
 */
public class ZaroException extends RuntimeException {
  public ZaroException(String message) {
    super(message);
  }

  public ZaroException(String message, Throwable cause) {
    super(message, cause);
  }
}
