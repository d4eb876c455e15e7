package dev.zaro.arrow.read;

import dev.zaro.arrow.store.ByteRange;

/**
 * Where a shard's bytes are: the whole value of {@code key} ({@code length < 0}), or {@code length}
 * bytes at {@code base} inside it (a shard nested in another).
 */
record ShardSource(String key, long base, long length) {
  /** A shard that is the whole value of {@code key}. */
  static ShardSource whole(String key) {
    return new ShardSource(key, 0, -1);
  }

  ByteRange range(long offset, long n) {
    return ByteRange.of(base + offset, n);
  }

  /** The key its index is cached under: nested shards by their place in the outer one. */
  String cacheKey() {
    return length < 0 ? key : key + "@" + base;
  }
}
