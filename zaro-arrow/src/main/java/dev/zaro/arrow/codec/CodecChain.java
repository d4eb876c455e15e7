package dev.zaro.arrow.codec;

import dev.zaro.arrow.error.CodecException;
import dev.zaro.arrow.metadata.CodecSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A resolved, immutable codec chain for the chunks of one array: array-to-array codecs, one
 * array-to-bytes codec, bytes-to-bytes codecs, in metadata order. Decoding runs backwards.
 */
public final class CodecChain {
  private final List<ArrayToArrayCodec> arrayToArray;
  private final ArrayToBytesCodec arrayToBytes;
  private final List<BytesToBytesCodec> bytesToBytes;
  private final ChunkSpec decodedSpec;
  private final ChunkSpec arrayToBytesSpec;

  /** The decoded spec of arrayToArray[i]. */
  private final List<ChunkSpec> arrayToArraySpecs;

  private final boolean layoutOnly;

  /** Decoded size of bytesToBytes[i] (the size entering it on encode), -1 if unknown. */
  private final long[] bytesSizes;

  private CodecChain(
      List<ArrayToArrayCodec> a2a,
      List<ChunkSpec> a2aSpecs,
      ArrayToBytesCodec a2b,
      List<BytesToBytesCodec> b2b,
      ChunkSpec decodedSpec,
      ChunkSpec a2bSpec) {
    this.arrayToArray = List.copyOf(a2a);
    this.arrayToArraySpecs = List.copyOf(a2aSpecs);
    this.layoutOnly =
        a2a.stream().allMatch(c -> c.capabilities().contains(CodecCapability.LAYOUT_ONLY));
    this.arrayToBytes = a2b;
    this.bytesToBytes = List.copyOf(b2b);
    this.decodedSpec = decodedSpec;
    this.arrayToBytesSpec = a2bSpec;
    this.bytesSizes = new long[b2b.size()];
    long size = a2b.encodedSize(a2bSpec);
    for (int i = 0; i < b2b.size(); i++) {
      bytesSizes[i] = size;
      size = size < 0 ? -1 : b2b.get(i).encodedSize(size);
    }
  }

  /**
   * Resolves codec metadata for chunks of {@code spec}.
   *
   * @throws CodecException if a codec is unknown, misconfigured or out of order
   */
  public static CodecChain resolve(List<CodecSpec> specs, ChunkSpec spec, CodecRegistry registry) {
    List<ArrayToArrayCodec> a2a = new ArrayList<>();
    List<ChunkSpec> a2aSpecs = new ArrayList<>();
    ArrayToBytesCodec a2b = null;
    List<BytesToBytesCodec> b2b = new ArrayList<>();
    ChunkSpec current = spec;
    ChunkSpec a2bSpec = null;
    for (CodecSpec codecSpec : specs) {
      Codec codec = registry.create(codecSpec, current);
      if (codec instanceof ArrayToArrayCodec c) {
        if (a2b != null) {
          throw new CodecException(
              "codec "
                  + c.name()
                  + " is an array-to-array codec and must come"
                  + " before the array-to-bytes codec "
                  + a2b.name());
        }
        a2a.add(c);
        a2aSpecs.add(current);
        current = c.encodedSpec(current);
      } else if (codec instanceof ArrayToBytesCodec c) {
        if (a2b != null) {
          throw new CodecException(
              "codec chain has two array-to-bytes codecs: " + a2b.name() + " and " + c.name());
        }
        a2b = c;
        a2bSpec = current;
      } else {
        BytesToBytesCodec c = (BytesToBytesCodec) codec;
        if (a2b == null) {
          throw new CodecException(
              "codec "
                  + c.name()
                  + " is a bytes-to-bytes codec and must come"
                  + " after an array-to-bytes codec such as bytes");
        }
        b2b.add(c);
      }
    }
    if (a2b == null) {
      throw new CodecException(
          "codec chain "
              + specs.stream().map(CodecSpec::name).toList()
              + " has no array-to-bytes codec (such as bytes)");
    }
    return new CodecChain(a2a, a2aSpecs, a2b, b2b, spec, a2bSpec);
  }

  /** The chunk the whole chain decodes to: the array's element type and this chunk's shape. */
  public ChunkSpec decodedSpec() {
    return decodedSpec;
  }

  /** The chain's codecs, in encode order. */
  public List<Codec> codecs() {
    List<Codec> all = new ArrayList<>(arrayToArray);
    all.add(arrayToBytes);
    all.addAll(bytesToBytes);
    return all;
  }

  /**
   * The partial decoder when chunks of this chain can be read in parts: the array-to-bytes codec
   * states {@link CodecCapability#PARTIAL_DECODE} (sharding), every array codec before it states
   * {@link CodecCapability#LAYOUT_ONLY}, and no bytes codec follows it.
   */
  public Optional<PartialDecoder> partialReader() {
    return arrayToBytes.capabilities().contains(CodecCapability.PARTIAL_DECODE)
            && bytesToBytes.isEmpty()
            && layoutOnly
        ? Optional.of(arrayToBytes.partialDecoder())
        : Optional.empty();
  }

  /** A view of the decoded chunk re-expressed on the array-to-bytes codec's array. */
  public SlabView encodedView(SlabView view) {
    SlabView v = view;
    for (ArrayToArrayCodec c : arrayToArray) {
      v = c.encodedView(v);
    }
    return v;
  }

  /** True when a stored chunk is its C-order little-endian elements, with nothing to decode. */
  public boolean isPlain() {
    return arrayToArray.isEmpty()
        && bytesToBytes.isEmpty()
        && arrayToBytes.isIdentity(arrayToBytesSpec);
  }

  /** The exact stored size of every chunk, or -1 when compressed or variable. */
  public long encodedSize() {
    long size = arrayToBytes.encodedSize(arrayToBytesSpec);
    for (BytesToBytesCodec c : bytesToBytes) {
      size = size < 0 ? -1 : c.encodedSize(size);
    }
    return size;
  }

  /**
   * Decodes one stored chunk (valid bytes {@code [0, writerIndex)}; not closed here) and writes the
   * elements {@code view} selects into its target. When the view is the chunk's own contiguous
   * region and the data needs no rearranging, the last decoding stage writes straight into the
   * target.
   */
  public void decodeInto(ArrowBuf encoded, SlabView view, BufferAllocator allocator) {
    decodeInto(encoded, view, allocator, null);
  }

  /**
   * As {@link #decodeInto(ArrowBuf, SlabView, BufferAllocator)}, decoding the last bytes stage into
   * {@code scratch} (when not null) instead of a new buffer.
   */
  public void decodeInto(
      ArrowBuf encoded, SlabView view, BufferAllocator allocator, Scratch scratch) {
    boolean direct =
        arrayToArray.isEmpty()
            && arrayToBytes.isIdentity(arrayToBytesSpec)
            && view.isWholeContiguous();
    long chunkBytes = decodedSpec.byteSize();
    ArrowBuf current = encoded;
    boolean owned = false;
    try {
      for (int i = bytesToBytes.size() - 1; i >= 0; i--) {
        BytesToBytesCodec codec = bytesToBytes.get(i);
        Set<CodecCapability> caps = codec.capabilities();
        boolean inPlace = caps.contains(CodecCapability.DECODE_IN_PLACE);
        if (i == 0
            && direct
            && inPlace
            && codec.decodeInto(current, view.target(), view.offset(), chunkBytes, scratch)) {
          return;
        }
        long[] span =
            i == 0 && !direct && layoutOnly && arrayToBytes.swapUnit(arrayToBytesSpec) >= 0
                ? encodedView(view).chunkSpan()
                : null;
        // a view needing under 3/4 of the chunk's bytes asks for just those (decodeRange); else
        // a large chunk streams through a small window
        boolean partial =
            span != null
                && caps.contains(CodecCapability.DECODE_RANGE)
                && (span[1] - span[0]) * 4 < bytesSizes[0] * 3;
        if (span != null
            && !partial
            && caps.contains(CodecCapability.DECODE_STREAMING)
            && scratch != null
            && bytesSizes[0] > STREAM_ABOVE
            && decodeStreaming(codec, current, view, scratch)) {
          return;
        }
        if (i == 0
            && scratch != null
            && bytesSizes[0] >= 0
            && !arrayToBytes.capabilities().contains(CodecCapability.KEEPS_INPUT)
            && (partial || inPlace)) {
          ArrowBuf reused = scratch.buffer(bytesSizes[0]);
          boolean part =
              partial
                  && codec.decodeRange(current, reused, bytesSizes[0], span[0], span[1], scratch);
          if (part || (inPlace && codec.decodeInto(current, reused, 0, bytesSizes[0], scratch))) {
            reused.writerIndex(bytesSizes[0]);
            if (owned) {
              current.close();
            }
            current = reused;
            owned = false;
            continue;
          }
        }
        ArrowBuf next = codec.decode(current, bytesSizes[i], allocator);
        if (owned) {
          current.close();
        }
        current = next;
        owned = true;
      }
      if (direct) {
        long length = current.writerIndex();
        if (length != chunkBytes) {
          throw new CodecException(
              "codec "
                  + arrayToBytes.name()
                  + ": chunk has "
                  + length
                  + " bytes, expected "
                  + chunkBytes
                  + " for "
                  + decodedSpec);
        }
        MemoryUtil.copyMemory(
            current.memoryAddress(), view.target().memoryAddress() + view.offset(), length);
        return;
      }
      if (layoutOnly) {
        SlabView encodedView = view;
        for (ArrayToArrayCodec c : arrayToArray) {
          encodedView = c.encodedView(encodedView);
        }
        arrayToBytes.decodeInto(current, arrayToBytesSpec, encodedView, allocator);
      } else {
        decodeMaterialized(current, view, allocator);
      }
    } finally {
      if (owned) {
        current.close();
      }
    }
  }

  /** Bytes of the window a streaming decoder fills before each scatter (fits in L2 cache). */
  static final int STREAM_WINDOW = 256 * 1024;

  /**
   * Chunks larger than this stream through the window; smaller ones decode in one call into the
   * reusable scratch (streaming costs a decoder context and an internal copy per chunk).
   */
  static final long STREAM_ABOVE = 4L << 20;

  /** Streams the last decode stage through a small window, scattering elements as they arrive. */
  private boolean decodeStreaming(
      BytesToBytesCodec codec, ArrowBuf encoded, SlabView view, Scratch scratch) {
    SlabView encodedView = encodedView(view);
    int itemSize = arrayToBytesSpec.dataType().byteSize();
    int swap = arrayToBytes.swapUnit(arrayToBytesSpec);
    ArrowBuf window = scratch.window(STREAM_WINDOW);
    return codec.decodeStreaming(
        encoded,
        bytesSizes[0],
        window,
        itemSize,
        (buf, off, position, length) ->
            encodedView.scatterRange(buf, off, position / itemSize, length / itemSize, swap));
  }

  /** Value-changing array codecs: decode whole chunk arrays, then scatter the last one. */
  private void decodeMaterialized(ArrowBuf bytes, SlabView view, BufferAllocator allocator) {
    ArrowBuf array = allocator.buffer(arrayToBytesSpec.byteSize());
    try {
      arrayToBytes.decodeInto(
          bytes,
          arrayToBytesSpec,
          SlabView.whole(
              array, 0, arrayToBytesSpec.dataType().byteSize(), arrayToBytesSpec.shape()),
          allocator);
      array.writerIndex(arrayToBytesSpec.byteSize());
      for (int i = arrayToArray.size() - 1; i >= 0; i--) {
        ArrowBuf next =
            arrayToArray.get(i).decode(array, arrayToArraySpecs.get(i), allocator, view.heap());
        array.close();
        array = next;
      }
      view.scatterFrom(array, array.writerIndex(), 0);
    } finally {
      array.close();
    }
  }

  @Override
  public String toString() {
    return codecs().stream().map(Codec::name).toList().toString();
  }
}
