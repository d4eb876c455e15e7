package dev.zaro.arrow.store;

import dev.zaro.arrow.error.StoreException;

/** Which bytes of a stored value to read. */
public sealed interface ByteRange {
  /** The whole value. */
  // All is constructed nowhere else, so its initialization only ever starts inside this
  // interface's: no second thread can hold one of the two while waiting for the other
  @SuppressWarnings("ClassInitializationDeadlock")
  ByteRange ALL = new All();

  /** {@code length} bytes from {@code offset}. */
  static ByteRange of(long offset, long length) {
    return new FromStart(offset, length);
  }

  /** The last {@code length} bytes. */
  static ByteRange suffix(long length) {
    return new Suffix(length);
  }

  /**
   * Resolves this range against the {@code size}-byte value of {@code key} in {@code where} (a
   * store's description), the one wording every store uses when a range does not fit.
   *
   * @return {offset, length}
   * @throws dev.zaro.arrow.error.StoreException naming the range, the key and where, if the range
   *     does not lie inside the value
   */
  default long[] resolve(long size, String key, String where) {
    try {
      return resolve(size);
    } catch (IllegalArgumentException e) {
      throw new StoreException(
          "cannot read " + this + " of key '" + key + "' in " + where + ": " + e.getMessage());
    }
  }

  /**
   * Resolves this range against a value of {@code size} bytes.
   *
   * @return {offset, length}
   * @throws IllegalArgumentException if the range does not lie inside the value
   */
  long[] resolve(long size);

  /** The whole value. */
  record All() implements ByteRange {
    @Override
    public long[] resolve(long size) {
      return new long[] {0, size};
    }

    @Override
    public String toString() {
      return "all bytes";
    }
  }

  /** {@code length} bytes starting at {@code offset}. */
  record FromStart(long offset, long length) implements ByteRange {
    /** Checks offset and length are not negative. */
    public FromStart {
      if (offset < 0 || length < 0) {
        throw new IllegalArgumentException("negative byte range " + offset + "+" + length);
      }
    }

    @Override
    public long[] resolve(long size) {
      if (offset + length > size) {
        throw new IllegalArgumentException(
            "bytes "
                + offset
                + ".."
                + (offset + length)
                + " lie past the end ("
                + size
                + " bytes)");
      }
      return new long[] {offset, length};
    }

    @Override
    public String toString() {
      return "bytes " + offset + ".." + (offset + length);
    }
  }

  /** The last {@code length} bytes. */
  record Suffix(long length) implements ByteRange {
    /** Checks the length is not negative. */
    public Suffix {
      if (length < 0) {
        throw new IllegalArgumentException("negative suffix length " + length);
      }
    }

    @Override
    public long[] resolve(long size) {
      if (length > size) {
        throw new IllegalArgumentException(
            "the last " + length + " bytes were asked of a " + size + "-byte value");
      }
      return new long[] {size - length, length};
    }

    @Override
    public String toString() {
      return "last " + length + " bytes";
    }
  }
}
