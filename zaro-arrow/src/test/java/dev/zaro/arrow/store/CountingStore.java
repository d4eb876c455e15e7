package dev.zaro.arrow.store;

import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/** Wraps a store and counts requests and bytes returned, for tests that assert I/O. */
public final class CountingStore implements Store {
  private final Store inner;
  public final AtomicLong gets = new AtomicLong();
  public final AtomicLong bytes = new AtomicLong();
  public final AtomicLong lists = new AtomicLong();

  /** The key of every get, in order. */
  public final Queue<String> keys = new ConcurrentLinkedQueue<>();

  public CountingStore(Store inner) {
    this.inner = inner;
  }

  public void reset() {
    gets.set(0);
    bytes.set(0);
    lists.set(0);
    keys.clear();
  }

  @Override
  public Optional<ArrowBuf> get(String key, ByteRange range, BufferAllocator allocator) {
    gets.incrementAndGet();
    keys.add(key);
    Optional<ArrowBuf> buf = inner.get(key, range, allocator);
    buf.ifPresent(b -> bytes.addAndGet(b.writerIndex()));
    return buf;
  }

  @Override
  public Optional<byte[]> getBytes(String key) {
    gets.incrementAndGet();
    keys.add(key);
    Optional<byte[]> value = inner.getBytes(key);
    value.ifPresent(b -> bytes.addAndGet(b.length));
    return value;
  }

  @Override
  public Stream<String> list(String prefix) {
    lists.incrementAndGet();
    return inner.list(prefix);
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
