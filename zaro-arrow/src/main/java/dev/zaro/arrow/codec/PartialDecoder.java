package dev.zaro.arrow.codec;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * The partial decoder of an array-to-bytes codec stating {@link CodecCapability#PARTIAL_DECODE}:
 * its input is an index (a prefix or suffix of fixed size) plus independently encoded inner chunks,
 * so a reader fetches the index with one ranged read and then only the byte ranges of the inner
 * chunks a view needs. Inner chunks decode with {@link #innerChain()}, which may itself be partial
 * (nested sharding).
 */
public interface PartialDecoder {
  /** The shape of one inner chunk. */
  int[] innerShape();

  /** The codec chain of the inner chunks. */
  CodecChain innerChain();

  /** Encoded size of the index in bytes. */
  long indexSize();

  /** Whether the index is the input's suffix (else its prefix). */
  boolean indexAtEnd();

  /** First byte that may hold chunk data (after an index at the start). */
  long dataStart();

  /** The fill value of one element, for absent inner chunks. */
  byte[] fillElement();

  /** Decodes an encoded index (valid bytes {@code [0, writerIndex)}; not closed here). */
  ShardIndex decodeIndex(ArrowBuf encoded, BufferAllocator allocator);

  /** Decodes one inner chunk's bytes into its part of the view. */
  void decodeInner(
      ArrowBuf encoded, SlabView innerView, BufferAllocator allocator, Scratch scratch);
}
