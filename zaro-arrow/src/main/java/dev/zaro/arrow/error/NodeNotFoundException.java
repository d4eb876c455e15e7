package dev.zaro.arrow.error;

/** No group or array exists at the requested path. */
public class NodeNotFoundException extends ZaroException {
  /** A missing node ({@link ErrorKind#NOT_FOUND}). */
  public NodeNotFoundException(String message) {
    super(ErrorKind.NOT_FOUND, message);
  }

  /** An error of {@code kind}. */
  public NodeNotFoundException(ErrorKind kind, String message) {
    super(kind, message);
  }
}
