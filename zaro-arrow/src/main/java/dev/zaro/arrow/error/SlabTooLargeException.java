package dev.zaro.arrow.error;

/**
 * A selection asked for as one slab (one buffer, one Arrow vector) is larger than the memory its
 * allocator may still hand out, or than an Arrow vector can index (2^31 - 1 values). Thrown before
 * anything is allocated; the streaming reads ({@code Zaro.readTensor}, {@code Zaro.readTable}) take
 * selections of any size. Kind: {@link ErrorKind#INVALID_ARGUMENT}.
 */
public class SlabTooLargeException extends ZaroException {
  private final long bytes;
  private final long limit;

  /**
   * @param bytes the slab's size
   * @param limit the limit it exceeds (bytes, or values for Arrow's vector limit)
   */
  public SlabTooLargeException(String message, long bytes, long limit) {
    super(ErrorKind.INVALID_ARGUMENT, message);
    this.bytes = bytes;
    this.limit = limit;
  }

  /** The size of the slab that was asked for, in bytes. */
  public long bytes() {
    return bytes;
  }

  /** The limit it exceeds: bytes of the allocator, or values of one Arrow vector. */
  public long limit() {
    return limit;
  }
}
