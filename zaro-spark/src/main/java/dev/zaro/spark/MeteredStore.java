package dev.zaro.spark;

import dev.zaro.arrow.store.ByteRange;
import dev.zaro.arrow.store.Store;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A store that counts the bytes its reads return (the task's "bytes fetched" metric) and
 * otherwise passes every call through, so each store keeps its own fast paths. Owns and closes
 * the wrapped store.
 */
final class MeteredStore implements Store {
  private final Store inner;
  private final AtomicLong bytes = new AtomicLong();

  MeteredStore(Store inner) {
    this.inner = inner;
  }

  /** Bytes returned by reads so far. */
  long bytesFetched() {
    return bytes.get();
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    Optional<ArrowBuf> value = inner.get(key, range, allocator);
    value.ifPresent(b -> bytes.addAndGet(b.writerIndex()));
    return value;
  }

  @Override
  public OptionalLong getInto(String key, ByteRange range, ArrowBuf target, long offset, long capacity) {
    OptionalLong n = inner.getInto(key, range, target, offset, capacity);
    n.ifPresent(bytes::addAndGet);
    return n;
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    Optional<byte[]> value = inner.getBytes(key);
    value.ifPresent(b -> bytes.addAndGet(b.length));
    return value;
  }

  @Override
  public CompletableFuture<Optional<ArrowBuf>> getAsync(String key, ByteRange range, BufferAllocator allocator,
      Executor executor) {
    return inner.getAsync(key, range, allocator, executor).thenApply(value -> {
      value.ifPresent(b -> bytes.addAndGet(b.writerIndex()));
      return value;
    });
  }

  @Override
  public Stream<String> list(String prefix) {
    return inner.list(prefix);
  }

  @Override
  public Stream<String> list(String prefix, Predicate<String> skipBelow) {
    return inner.list(prefix, skipBelow);
  }

  @Override
  public boolean canList() {
    return inner.canList();
  }

  @Override
  public boolean isLocal() {
    return inner.isLocal();
  }

  @Override
  public String describe() {
    return inner.describe();
  }

  @Override
  public void close() {
    inner.close();
  }
}
