package dev.zaro.arrow.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.metadata.ChunkGrid;
import dev.zaro.arrow.metadata.ChunkKeyEncoding;
import dev.zaro.arrow.metadata.DataType;
import dev.zaro.arrow.metadata.FillValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ReadPlan against brute force: random shapes, chunkings, selections and byte targets. */
class ReadPlanTest {

  static ArrayMetadata array(long[] shape, int[] chunks, DataType type) {
    return new ArrayMetadata(
        3,
        shape,
        type,
        chunks,
        new ChunkKeyEncoding.DefaultEncoding('/'),
        FillValue.zero(type),
        List.of(),
        null,
        null);
  }

  /**
   * Every selected element once, in C order; pieces never cut a chunk; sizes bounded by the target.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
  void piecesCoverTheSelectionOnceOnChunkBoundaries(int seed) {
    Random random = new Random(seed);
    for (int trial = 0; trial < 150; trial++) {
      int rank = random.nextInt(4);
      long[] shape = new long[rank];
      int[] chunks = new int[rank];
      StringBuilder text = new StringBuilder();
      for (int d = 0; d < rank; d++) {
        shape[d] = 1L + random.nextInt(13);
        chunks[d] = 1 + random.nextInt(6);
        long a = random.nextInt((int) shape[d]);
        long b = a + random.nextInt((int) (shape[d] - a) + 1);
        int step = 1 + random.nextInt(random.nextBoolean() ? 2 : 8);
        if (d > 0) {
          text.append(", ");
        }
        if (random.nextInt(5) == 0) {
          // a sorted index list (duplicates allowed): its pieces never share a chunk either
          long[] list = new long[random.nextInt(5)];
          for (int i = 0; i < list.length; i++) {
            list[i] = random.nextInt((int) shape[d]);
          }
          Arrays.sort(list);
          text.append(Arrays.toString(list));
        } else {
          text.append(random.nextInt(6) == 0 ? String.valueOf(a) : a + ":" + b + ":" + step);
        }
      }
      ArrayMetadata meta = array(shape, chunks, DataType.INT16);
      Selection selection = Selection.parse(text.toString(), shape);
      ReadPlan plan = ReadPlan.of(meta, selection);
      long target = 2L + random.nextInt(200);
      List<Selection> pieces = plan.split(target);
      String where =
          "shape "
              + Arrays.toString(shape)
              + " chunks "
              + Arrays.toString(chunks)
              + " selection '"
              + text
              + "' target "
              + target;

      // brute force: the selection's elements in C order
      List<List<Long>> want = elements(selection);
      List<List<Long>> got = new ArrayList<>();
      for (Selection piece : pieces) {
        assertEquals(
            piece,
            Selection.parse(piece.canonical(), shape),
            where + ": canonical text of " + piece);
        List<List<Long>> e = elements(piece);
        assertTrue(!e.isEmpty(), where + ": empty piece " + piece);
        got.addAll(e);
        // no chunk is shared with another piece: collect chunk ids per piece
        long bytes = e.size() * 2L;
        if (bytes > target) {
          // larger than the target only when it is a single chunk run of its deepest cut dimension
          assertTrue(
              singleChunkRunsOrWhole(piece, selection, chunks),
              where + ": piece " + piece + " has " + bytes + " bytes");
        }
      }
      // C order across pieces = the pieces concatenated equal the selection's C order, once each
      assertEquals(new HashSet<>(want).size(), new HashSet<>(got).size(), where);
      Set<List<Long>> seenChunks = new HashSet<>();
      for (Selection piece : pieces) {
        Set<List<Long>> mine = new HashSet<>();
        for (List<Long> index : elements(piece)) {
          List<Long> chunk = new ArrayList<>();
          for (int d = 0; d < rank; d++) {
            chunk.add(index.get(d) / chunks[d]);
          }
          mine.add(chunk);
        }
        for (List<Long> c : mine) {
          assertTrue(seenChunks.add(c), where + ": chunk " + c + " is in two pieces");
        }
      }
      assertEquals(sorted(want), sorted(got), where);
      Set<List<Long>> touched = new HashSet<>();
      for (List<Long> index : want) {
        List<Long> chunk = new ArrayList<>();
        for (int d = 0; d < rank; d++) {
          chunk.add(index.get(d) / chunks[d]);
        }
        touched.add(chunk);
      }
      assertEquals(touched.size(), plan.chunkCount(), where + ": chunk count");
      assertEquals(want.size() * 2L, plan.decodedBytes(), where);
    }
  }

  private static boolean singleChunkRunsOrWhole(Selection piece, Selection whole, int[] chunks) {
    // every dimension the piece does not take whole lies in one chunk: the target was smaller
    // than one chunk run, and a piece never cuts a chunk
    for (int d = 0; d < piece.dims().size(); d++) {
      Selection.Dim p = piece.dims().get(d);
      Selection.Dim w = whole.dims().get(d);
      boolean isWhole = p.equals(w);
      long first = p.min() / chunks[d];
      long last = p.max() / chunks[d];
      if (!isWhole && first != last) {
        return false;
      }
    }
    return true;
  }

  private static List<List<Long>> sorted(List<List<Long>> xs) {
    List<List<Long>> out = new ArrayList<>(xs);
    out.sort(
        (a, b) -> {
          for (int i = 0; i < a.size(); i++) {
            int c = Long.compare(a.get(i), b.get(i));
            if (c != 0) {
              return c;
            }
          }
          return 0;
        });
    return out;
  }

  /** The selected array indices in C order. */
  static List<List<Long>> elements(Selection s) {
    List<List<Long>> out = new ArrayList<>();
    int rank = s.dims().size();
    if (s.size() == 0) {
      return out;
    }
    long[] k = new long[rank];
    while (true) {
      List<Long> index = new ArrayList<>();
      for (int d = 0; d < rank; d++) {
        index.add(s.dims().get(d).index(k[d]));
      }
      out.add(index);
      int d = rank - 1;
      while (d >= 0 && ++k[d] == s.dims().get(d).count()) {
        k[d] = 0;
        d--;
      }
      if (d < 0) {
        return out;
      }
    }
  }

  /** A piece over the target is one chunk run wherever it is not whole. */
  @Test
  void piecesOverTheTargetAreSingleChunkRuns() {
    ArrayMetadata meta = array(new long[] {13, 13, 13}, new int[] {2, 2, 2}, DataType.INT16);
    Selection all = Selection.all(meta.shape());
    for (Selection piece : ReadPlan.of(meta, all).split(200)) {
      long bytes = piece.size() * 2;
      assertTrue(
          bytes <= 200 || singleChunkRunsOrWhole(piece, all, new int[] {2, 2, 2}),
          piece + ": " + bytes);
    }
  }

  /** A rectilinear grid splits on its real chunk edges, in both policies. */
  @Test
  void rectilinearSplitsOnRealEdges() {
    long[] shape = {10, 7};
    ChunkGrid grid =
        ChunkGrid.rectilinear(
            List.of(
                ChunkGrid.Dim.of(10, new long[] {3, 5, 2}, new long[] {1, 1, 1}),
                ChunkGrid.Dim.of(7, new long[] {4}, new long[] {2})));
    ArrayMetadata meta =
        new ArrayMetadata(
            3,
            shape,
            DataType.INT32,
            new int[] {5, 4},
            new ChunkKeyEncoding.DefaultEncoding('/'),
            FillValue.zero(DataType.INT32),
            List.of(),
            null,
            null,
            grid);
    ReadPlan plan = ReadPlan.of(meta, Selection.parse("1:10", shape));
    assertEquals(
        List.of("1:3:1, 0:7:1", "3:8:1, 0:7:1", "8:10:1, 0:7:1"),
        plan.splitFirst(1, Long.MAX_VALUE).stream().map(Selection::canonical).toList());
    assertEquals(
        List.of(
            "1:3:1, 0:4:1",
            "1:3:1, 4:7:1",
            "3:8:1, 0:4:1",
            "3:8:1, 4:7:1",
            "8:10:1, 0:4:1",
            "8:10:1, 4:7:1"),
        plan.split(1).stream().map(Selection::canonical).toList());
    assertEquals(6, plan.chunkCount());
    // rows cap: a 5-row chunk run cut at 2 rows
    assertEquals(
        List.of("1:3:1, 0:7:1", "3:5:1, 0:7:1", "5:7:1, 0:7:1", "7:8:1, 0:7:1", "8:10:1, 0:7:1"),
        plan.splitFirst(Long.MAX_VALUE, 2).stream().map(Selection::canonical).toList());
    // a dropped first dimension: the cut moves to the first kept one (the result's rows)
    ReadPlan dropped = ReadPlan.of(meta, Selection.parse("4, 1:7", shape));
    assertEquals(
        List.of("4, 1:4:1", "4, 4:7:1"),
        dropped.splitFirst(1, Long.MAX_VALUE).stream().map(Selection::canonical).toList());
    assertEquals(
        List.of("4, 1:3:1", "4, 3:4:1", "4, 4:6:1", "4, 6:7:1"),
        dropped.splitFirst(Long.MAX_VALUE, 2).stream().map(Selection::canonical).toList());
    assertEquals(
        List.of("4, 5"),
        ReadPlan.of(meta, Selection.parse("4, 5", shape)).splitFirst(1, 1).stream()
            .map(Selection::canonical)
            .toList());
  }

  /**
   * An unsorted index list with duplicates is cut by positions of the list where its index moves to
   * another chunk; the pieces, in order, are the list; the plan counts distinct chunks.
   */
  @Test
  void indexListsAreCutByPositionsAtChunkChanges() {
    long[] shape = {20, 7};
    ArrayMetadata meta = array(shape, new int[] {5, 7}, DataType.INT32);
    ReadPlan plan = ReadPlan.of(meta, Selection.parse("[12,11,3,3,19,14,0], 2", shape));
    // chunks of the list: 2 2 0 0 3 2 0
    assertEquals(
        List.of("[12,11], 2", "[3,3], 2", "[19], 2", "[14], 2", "[0], 2"),
        plan.splitFirst(1, Long.MAX_VALUE).stream().map(Selection::canonical).toList());
    assertEquals(
        List.of("[12,11,3,3,19,14,0], 2"),
        plan.splitFirst(Long.MAX_VALUE, Long.MAX_VALUE).stream()
            .map(Selection::canonical)
            .toList());
    assertEquals(3, plan.chunkCount());
    assertEquals(
        List.of("[12,11], 2", "[3,3,19], 2", "[14,0], 2"),
        plan.splitFirst(Long.MAX_VALUE, 3).stream().map(Selection::canonical).toList());
    assertEquals(
        elements(plan.selection()),
        plan.split(8).stream().flatMap(p -> elements(p).stream()).toList());
  }

  /** Ten million chunks: the first piece comes at once, and counting needs no list. */
  @Test
  void tenMillionChunksPlanLazily() {
    ArrayMetadata meta =
        array(new long[] {10_000, 1_000, 1_000}, new int[] {1, 10, 100}, DataType.FLOAT32);
    ReadPlan plan = ReadPlan.of(meta, Selection.all(meta.shape()));
    assertEquals(10_000_000L, plan.chunkCount());
    Iterator<Selection> pieces = plan.pieces(128L << 20);
    Selection first = pieces.next();
    assertEquals("0:33:1, 0:1000:1, 0:1000:1", first.canonical());
    assertEquals(10_000 / 33 + 1, plan.split(128L << 20).size());
    // a target smaller than one chunk: one piece per chunk, the second in C order
    Iterator<Selection> small = plan.pieces(1000);
    small.next();
    assertEquals("0:1:1, 0:10:1, 100:200:1", small.next().canonical());
  }

  /** Pieces are whole runs of chunks: with a target of one chunk row, each piece is one row. */
  @Test
  void groupsWholeChunkRows() {
    ArrayMetadata meta = array(new long[] {100, 40}, new int[] {10, 40}, DataType.FLOAT64);
    ReadPlan plan = ReadPlan.of(meta, Selection.parse("5:95", meta.shape()));
    // one chunk row is 10 x 40 x 8 = 3200 bytes; a 7000-byte target takes two rows
    List<String> got = plan.split(7000).stream().map(Selection::canonical).toList();
    assertEquals(
        List.of(
            "5:20:1, 0:40:1",
            "20:40:1, 0:40:1",
            "40:60:1, 0:40:1",
            "60:80:1, 0:40:1",
            "80:95:1, 0:40:1"),
        got);
    assertEquals(1, plan.split(Long.MAX_VALUE).size());
  }
}
