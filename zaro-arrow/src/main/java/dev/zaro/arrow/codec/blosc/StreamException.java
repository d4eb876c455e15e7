package dev.zaro.arrow.codec.blosc;

/**
 * A malformed compressed stream inside a frame. Thrown by the stream decoders without a stack
 * trace; {@link BloscDecoder} turns it into a {@link dev.zaro.arrow.error.CodecException} that
 * names the block and the stream.
 */
final class StreamException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  StreamException(String message) {
    super(message, null, false, false);
  }
}
