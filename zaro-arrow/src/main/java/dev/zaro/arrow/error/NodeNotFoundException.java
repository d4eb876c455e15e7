package dev.zaro.arrow.error;

/** No group or array exists at the requested path. */
public class NodeNotFoundException extends ZaroException {
  public NodeNotFoundException(String message) {
    super(ErrorKind.NOT_FOUND, message);
  }

  public NodeNotFoundException(ErrorKind kind, String message) {
    super(kind, message);
  }
}
