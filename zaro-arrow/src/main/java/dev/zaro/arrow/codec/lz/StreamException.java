package dev.zaro.arrow.codec.lz;

/**
 * A malformed compressed stream. Thrown by the LZ-family block decoders without a stack trace;
 * their codecs (blosc, numcodecs lz4) turn it into a {@link dev.zaro.arrow.error.CodecException}
 * that names the codec (and, in blosc, the block and the stream).
 */
public final class StreamException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StreamException(String message) {
    super(message, null, false, false);
  }
}
