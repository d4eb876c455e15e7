package dev.zaro.arrow.error;

/** A store could not be opened or read: the message names the store and the key. */
public class StoreException extends ZaroException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
