package dev.zaro.arrow.plan;

/**
 * The values along one dimension of an array that a {@link DimensionFilter} compares predicates
 * against: a coordinate array's values, CF times as epoch microseconds, or the index itself. The
 * table layout's dimension columns ({@code vector.DimensionColumn}) are the values zaro makes.
 */
public interface CoordinateValues {
  /** The dimension these values run along (0 is the first). */
  int dim();

  /** The name predicates use for these values (the table layout's column name). */
  String name();

  /**
   * The value at array index {@code i} as a number for ordering (NaN where there is none).
   *
   * @param i an index along the dimension, {@code 0 <= i <} the dimension's size
   */
  double valueAt(long i);

  /**
   * Whether the values are epoch microseconds, so that predicates may compare them with dates and
   * instants as well as numbers.
   */
  boolean isEpochMicros();

  /**
   * Whether the values are labels (text coordinates, 360_day times), which predicates compare only
   * for equality, through {@link #labelAt}; {@link #valueAt} is then NaN.
   */
  default boolean isLabels() {
    return false;
  }

  /**
   * The label at array index {@code i} (UTF-8 text, or raw bytes) when {@link #isLabels()}.
   *
   * @throws UnsupportedOperationException for values that are not labels
   */
  default byte[] labelAt(long i) {
    throw new UnsupportedOperationException("not labels");
  }
}
