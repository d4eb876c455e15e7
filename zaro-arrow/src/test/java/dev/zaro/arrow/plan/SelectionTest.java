package dev.zaro.arrow.plan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.codec.internal.ChunkPart;
import dev.zaro.arrow.error.SelectionException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Expected values follow numpy's indexing rules (worked out by hand from numpy's docs). */
class SelectionTest {
  private static final long[] SHAPE = {10, 20, 30};

  private static Selection.Dim dim(String text, int d) {
    return Selection.parse(text, SHAPE).dims().get(d);
  }

  @ParameterizedTest(name = "''{0}'' -> start {1} step {2} count {3} dropped {4}")
  @CsvSource(
      delimiter = ';',
      value = {
        ":; 0; 1; 10; false",
        "2:7; 2; 1; 5; false",
        "::3; 0; 3; 4; false",
        "1:10:4; 1; 4; 3; false",
        "-3:; 7; 1; 3; false",
        ":-1; 0; 1; 9; false",
        "-1; 9; 1; 1; true",
        "4; 4; 1; 1; true",
        "5:5; 5; 1; 0; false",
        "7:3; 7; 1; 0; false",
        "0:10:20; 0; 20; 1; false",
        "' 3 : 9 : 2 '; 3; 2; 3; false"
      })
  void parsesLikeNumpy(String text, long start, long step, long count, boolean dropped) {
    assertEquals(new Selection.Dim(start, step, count, dropped), dim(text, 0));
  }

  @Test
  void missingTrailingEntriesAndEllipsisMeanEverything() {
    assertArrayEquals(new long[] {3, 20, 30}, Selection.parse("0:3", SHAPE).resultShape());
    assertArrayEquals(new long[] {10, 20, 30}, Selection.parse("", SHAPE).resultShape());
    assertArrayEquals(new long[] {10, 20}, Selection.parse("..., 5", SHAPE).resultShape());
    assertArrayEquals(new long[] {20}, Selection.parse("1, ..., 2", SHAPE).resultShape());
    assertArrayEquals(new long[] {}, Selection.parse("1, 2, 3", SHAPE).resultShape());
    assertArrayEquals(new long[] {1, 1, 1}, Selection.parse("1, 2, 3", SHAPE).counts());
  }

  @Test
  void zeroDimensionalArraysTakeTheEmptySelection() {
    Selection s = Selection.parse("", new long[0]);
    assertEquals(List.of(), s.dims());
    assertEquals(1, s.size());
    assertThrows(SelectionException.class, () -> Selection.parse("0", new long[0]));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = ';',
      quoteCharacter = '"',
      value = {
        "10; index 10 is out of range",
        "-11; index -11 is out of range",
        "0:11; stop 11 is out of range",
        "-12:; start -12 is out of range",
        "::0; step must be positive",
        "::-1; step must be positive",
        "a:b; 'a' is not an integer",
        "1:2:3:4; expected start:stop",
        "1.5; '1.5' is not an integer",
        "0, 0, 0, 0; has 4 entries but the array has 3 dimensions",
        "..., ...; more than one '...'",
        "0,,1; empty entry"
      })
  void badSelectionsSayWhatIsWrong(String text, String message) {
    SelectionException e =
        assertThrows(SelectionException.class, () -> Selection.parse(text, SHAPE));
    assertTrue(e.getMessage().contains(message), e.getMessage());
    assertTrue(e.getMessage().contains("selection '" + text + "'"), e.getMessage());
  }

  /** numpy's outer indexing: {@code a[np.ix_([0, 9, 9], range(20), [29, 0])]}, worked by hand. */
  @Test
  void indexListsKeepTheirOrderDuplicatesAndDimension() {
    Selection s = Selection.parse("[0, -1, 9], :, [29,0]", SHAPE);
    assertArrayEquals(new long[] {3, 20, 2}, s.resultShape());
    assertEquals(120, s.size());
    assertTrue(s.hasLists());
    Selection.Dim d0 = s.dims().get(0);
    assertTrue(d0.isList());
    assertArrayEquals(new long[] {0, 9, 9}, d0.indices());
    assertEquals(9, d0.index(2));
    assertEquals(0, d0.min());
    assertEquals(9, d0.max());
    assertThrows(IllegalStateException.class, d0::start);
    assertThrows(IllegalStateException.class, d0::step);
    assertEquals("[0,9,9], 0:20:1, [29,0]", s.canonical());
    assertEquals(s.dims(), Selection.parse(s.canonical(), SHAPE).dims());
    // a one-element list keeps its dimension, an integer drops it
    assertArrayEquals(new long[] {1, 20, 30}, Selection.parse("[4]", SHAPE).resultShape());
    assertArrayEquals(new long[] {20, 30}, Selection.parse("4", SHAPE).resultShape());
    // an empty list is a 0-length dimension
    Selection empty = Selection.parse("1, [], ...", SHAPE);
    assertArrayEquals(new long[] {0, 30}, empty.resultShape());
    assertEquals("1, [], 0:30:1", empty.canonical());
    assertEquals(empty.dims(), Selection.parse(empty.canonical(), SHAPE).dims());
    assertFalse(Selection.parse("1:3, 4", SHAPE).hasLists());
  }

  @Test
  void restrictingAListTakesPositionsOfTheList() {
    Selection s = Selection.parse("[7,2,5,2], 3", SHAPE);
    Selection r = s.restrict(0, 1, 2);
    assertArrayEquals(new long[] {2, 5}, r.dims().get(0).indices());
    assertEquals("[2,5], 3, 0:30:1", r.canonical());
    assertEquals(r.dims(), Selection.parse(r.canonical(), SHAPE).dims());
    assertThrows(IllegalArgumentException.class, () -> s.restrict(0, 3, 2));
    // the indices inside a range, in the list's order
    assertArrayEquals(new long[] {2, 5, 2}, s.dims().get(0).within(2, 7).indices());
  }

  @Test
  void chunkPartsCoverTheSelectionInOrder() {
    // indices 3, 8, 13, 18, 23 with chunks of 10: chunk 0 has 3, 8; chunk 1 has 13, 18; chunk 2 has
    // 23
    List<ChunkPart> parts = ChunkPart.split(3, 5, 5, 10);
    assertEquals(
        List.of(new ChunkPart(0, 3, 2, 0), new ChunkPart(1, 3, 2, 2), new ChunkPart(2, 3, 1, 4)),
        parts);
    // step larger than the chunk skips chunks: 1, 26, 51 with chunks of 8 -> chunks 0, 3, 6
    assertEquals(
        List.of(new ChunkPart(0, 1, 1, 0), new ChunkPart(3, 2, 1, 1), new ChunkPart(6, 3, 1, 2)),
        ChunkPart.split(1, 25, 3, 8));
  }
}
