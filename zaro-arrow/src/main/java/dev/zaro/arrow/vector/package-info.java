/**
 * Arrow shapes of the data read: tensors (one vector per read, {@link
 * dev.zaro.arrow.vector.TensorReader}, {@link dev.zaro.arrow.vector.SlabVectors} and Arrow's
 * fixed-shape tensor extension type), the table layout (one row per element, with a column per
 * dimension: {@link dev.zaro.arrow.vector.TableReader}, {@link
 * dev.zaro.arrow.vector.DimensionColumn}, {@link dev.zaro.arrow.vector.CoordinateColumns}, CF
 * conventions), struct vectors for structured data types, and the hand-offs to other tools: Arrow
 * IPC files ({@link dev.zaro.arrow.vector.ArrowFiles}) and the C Data Interface ({@link
 * dev.zaro.arrow.vector.CData}). Vectors come from the caller's allocator; the caller closes them.
 */
package dev.zaro.arrow.vector;
