package dev.zaro.arrow.plan;

/**
 * The values along one dimension of an array that a {@link DimensionFilter} compares predicates
 * against: a coordinate array's values, CF times as epoch microseconds, or the index itself. The
 * table layout's dimension columns ({@code read.DimensionColumn}) are the values zaro makes.
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
}
