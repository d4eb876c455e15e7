package dev.zaro.flight;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.arrow.read.ZarrArray;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * Describe answers kept for the next client that asks the same, so that opening a dataset costs the
 * server a lookup rather than a read of its coordinates (docs/ARCHITECTURE.md, "Same-machine
 * reads").
 *
 * <p>An answer depends on the hierarchy's metadata, which a {@link Zaro} reads once and keeps for
 * its life, and on the stored chunks of its inline arrays. It is kept with the {@link
 * dev.zaro.arrow.store.Store#version version} of every chunk key of those arrays, taken before they
 * were read, and given again only while every one is unchanged: a chunk rewritten, touched or
 * deleted since makes the answer be made anew. Not kept: answers with a chunk whose version the
 * store cannot tell (remote stores, files modified in the last seconds, missing chunks), answers
 * whose inline arrays have more than {@link #MAX_KEYS} chunks, and answers over {@link
 * #MAX_ANSWER_BYTES}. At most {@link #MAX_ENTRIES} answers and {@link #MAX_BYTES} in all are kept,
 * the least recently used dropped first. Thread-safe; holds heap byte arrays only.
 */
final class DescribeCache {
  static final int MAX_ENTRIES = 64;
  static final long MAX_BYTES = 64L << 20;
  static final long MAX_ANSWER_BYTES = 16L << 20;
  static final int MAX_KEYS = 256;

  /** A request and the surface it was made for (Flight's streams or HTTP's JSON differ). */
  record Key(GroupDescription.Request request, boolean http) {}

  private record Entry(List<byte[]> answer, long bytes, Map<String, String> versions) {}

  private final Zaro zaro;
  private final LinkedHashMap<Key, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
  private final LongAdder hits = new LongAdder();
  private long bytes;

  DescribeCache(Zaro zaro) {
    this.zaro = zaro;
  }

  /**
   * The answer to {@code key}: the kept one while its chunks are unchanged, else {@code make}'s
   * answer to a new description of the group (kept when it may be).
   */
  List<byte[]> answer(Key key, Function<GroupDescription, List<byte[]>> make) {
    Entry kept;
    synchronized (this) {
      kept = entries.get(key);
    }
    if (kept != null && unchanged(kept.versions())) {
      hits.increment();
      return kept.answer();
    }
    GroupDescription description = new GroupDescription(zaro, key.request());
    Map<String, String> versions = versions(description);
    List<byte[]> answer = make.apply(description);
    long size = 0;
    for (byte[] part : answer) {
      size += part.length;
    }
    synchronized (this) {
      Entry old = entries.remove(key);
      if (old != null) {
        bytes -= old.bytes();
      }
      if (versions != null && size <= MAX_ANSWER_BYTES) {
        entries.put(key, new Entry(answer, size, versions));
        bytes += size;
        Iterator<Entry> eldest = entries.values().iterator();
        while (entries.size() > MAX_ENTRIES || bytes > MAX_BYTES) {
          bytes -= eldest.next().bytes();
          eldest.remove();
        }
      }
    }
    return answer;
  }

  /** Answers given from the cache since start. */
  long hits() {
    return hits.sum();
  }

  private boolean unchanged(Map<String, String> versions) {
    for (Map.Entry<String, String> e : versions.entrySet()) {
      Optional<String> now = zaro.store().version(e.getKey());
      if (now.isEmpty() || !now.get().equals(e.getValue())) {
        return false;
      }
    }
    return true;
  }

  /** The version of every chunk key of the inline arrays, or null when one cannot be told. */
  private Map<String, String> versions(GroupDescription description) {
    List<String> keys = new ArrayList<>();
    for (Node node : description.inlineArrays()) {
      ZarrArray array = zaro.array(node.path());
      ArrayMetadata meta = array.metadata();
      long chunks = meta.rank() == 0 ? 1 : meta.chunkGridShape()[0];
      if (keys.size() + chunks > MAX_KEYS) {
        return null;
      }
      for (long c = 0; c < chunks; c++) {
        keys.add(array.chunkKey(meta.rank() == 0 ? new long[0] : new long[] {c}));
      }
    }
    Map<String, String> versions = new LinkedHashMap<>();
    for (String key : keys) {
      Optional<String> version = zaro.store().version(key);
      if (version.isEmpty()) {
        return null;
      }
      versions.put(key, version.get());
    }
    return versions;
  }
}
