package dev.zaro.arrow.error;

/** Encoded data could not be decoded: the message names the codec (and, once known, the chunk). */
public class CodecException extends ZaroException {
  public CodecException(String message) {
    super(ErrorKind.CORRUPT, message);
  }

  public CodecException(ErrorKind kind, String message) {
    super(kind, message);
  }

  public CodecException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.CORRUPT,
        message,
        cause);
  }

  public CodecException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
