package dev.zaro.arrow.store;

import java.nio.charset.StandardCharsets;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** A store held in heap memory: for tests, and for small hierarchies built in a program. */
public final class MemoryStore implements Store {
  private final NavigableMap<String, byte[]> values = new ConcurrentSkipListMap<>();
  private final String name;

  /** An empty store. */
  public MemoryStore() {
    this("memory");
  }

  /** An empty store described as {@code name} in errors. */
  public MemoryStore(String name) {
    this.name = name;
  }

  /** Stores a copy of {@code value} under {@code key}. */
  public MemoryStore put(String key, byte[] value) {
    values.put(StoreKeys.checked(key, this), value.clone());
    return this;
  }

  /** Stores {@code utf8} as UTF-8 bytes at {@code key}; returns this store. */
  public MemoryStore put(String key, String utf8) {
    return put(key, utf8.getBytes(StandardCharsets.UTF_8));
  }

  /** Removes {@code key}; returns this store. */
  public MemoryStore remove(String key) {
    values.remove(key);
    return this;
  }

  /** Copies every value of {@code other} into this store. */
  public MemoryStore putAll(Store other) {
    other.list("").forEach(k -> put(k, other.getBytes(k).orElseThrow()));
    return this;
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    byte[] value = values.get(StoreKeys.checked(key, this));
    if (value == null) {
      return Optional.empty();
    }
    long[] offsetLength = range.resolve(value.length, key, describe());
    ArrowBuf buf = allocator.buffer(offsetLength[1]);
    buf.setBytes(0, value, (int) offsetLength[0], offsetLength[1]);
    buf.writerIndex(offsetLength[1]);
    return Optional.of(buf);
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    byte[] value = values.get(StoreKeys.checked(key, this));
    return value == null ? Optional.empty() : Optional.of(value.clone());
  }

  @Override
  public Stream<String> list(String prefix) {
    return values.tailMap(prefix, true).keySet().stream().takeWhile(k -> k.startsWith(prefix));
  }

  /** {@inheritDoc} The values' lengths. */
  @Override
  public Optional<SortedMap<String, Long>> listSizes(String prefix) {
    SortedMap<String, Long> sizes = new TreeMap<>();
    list(prefix).forEach(k -> sizes.put(k, (long) values.get(k).length));
    return Optional.of(sizes);
  }

  @Override
  public StoreCapabilities capabilities() {
    return StoreCapabilities.LOCAL;
  }

  @Override
  public String describe() {
    return name;
  }
}
