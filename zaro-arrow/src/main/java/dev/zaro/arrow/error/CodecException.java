package dev.zaro.arrow.error;

/** Encoded data could not be decoded: the message names the codec (and, once known, the chunk). */
public class CodecException extends ZaroException {
  public CodecException(String message) {
    super(message);
  }

  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
