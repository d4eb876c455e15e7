package dev.zaro.arrow.error;

/** No group or array exists at the requested path. */
public class NodeNotFoundException extends ZaroException {
  public NodeNotFoundException(String message) {
    super(message);
  }
}
