package dev.zaro.arrow.error;

/**
 * The one unchecked base of every error zaro raises on purpose. Messages name what went wrong and
 * where: the store key, the metadata field, the codec, the chunk index; {@link #kind()} says what
 * kind of failure it is, as data.
 */
public class ZaroException extends RuntimeException {
  private final ErrorKind kind;

  /** An error of kind {@link ErrorKind#INTERNAL}. */
  public ZaroException(String message) {
    this(ErrorKind.INTERNAL, message);
  }

  /** Keeps the kind of a ZaroException cause (context added to a lower error). */
  public ZaroException(String message, Throwable cause) {
    this(cause instanceof ZaroException z ? z.kind() : ErrorKind.INTERNAL, message, cause);
  }

  /** An error of {@code kind}. */
  public ZaroException(ErrorKind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /** An error of {@code kind} with its cause. */
  public ZaroException(ErrorKind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /** What kind of failure this is; see {@link ErrorKind}. */
  public ErrorKind kind() {
    return kind;
  }
}
