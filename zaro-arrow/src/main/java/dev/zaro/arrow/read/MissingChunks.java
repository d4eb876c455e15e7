package dev.zaro.arrow.read;

/** What a read does with a chunk (or shard) whose key is absent from the store. */
public enum MissingChunks {
  /** The Zarr default: the chunk reads as the array's fill value. */
  FILL,
  /**
   * The read fails with a {@link dev.zaro.arrow.error.ErrorKind#MISSING_CHUNK} error naming the
   * chunk's key (zarr-python 3.2's reader option of the same meaning). Inner chunks that a shard's
   * index marks absent are not store keys and still read as the fill value.
   */
  ERROR
}
