package dev.zaro.arrow.error;

/** Encoded data could not be decoded: the message names the codec (and, once known, the chunk). */
public class CodecException extends ZaroException {
  /** A corrupt-data error ({@link ErrorKind#CORRUPT}). */
  public CodecException(String message) {
    super(ErrorKind.CORRUPT, message);
  }

  /** An error of {@code kind}. */
  public CodecException(ErrorKind kind, String message) {
    super(kind, message);
  }

  /** A corrupt-data error with its cause. */
  public CodecException(String message, Throwable cause) {
    super(
        cause instanceof ZaroException z && z.kind() != ErrorKind.INTERNAL
            ? z.kind()
            : ErrorKind.CORRUPT,
        message,
        cause);
  }

  /** An error of {@code kind} with its cause. */
  public CodecException(ErrorKind kind, String message, Throwable cause) {
    super(kind, message, cause);
  }
}
