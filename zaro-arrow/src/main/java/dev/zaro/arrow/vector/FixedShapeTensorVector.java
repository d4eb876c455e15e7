package dev.zaro.arrow.vector;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.hash.ArrowBufHasher;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** A column of {@link FixedShapeTensorType}: rows are tensors; storage is a FixedSizeList. */
public final class FixedShapeTensorVector extends ExtensionTypeVector<FixedSizeListVector> {
  private final FixedShapeTensorType type;
  private final FieldType fieldType;

  /**
   * A vector of tensors of {@code type}, allocating from {@code allocator}; the caller closes it.
   */
  public FixedShapeTensorVector(
      String name,
      BufferAllocator allocator,
      FixedShapeTensorType type,
      FieldType fieldType,
      FixedSizeListVector storage) {
    super(name, allocator, storage);
    this.type = type;
    this.fieldType =
        new FieldType(
            fieldType.isNullable(), type, fieldType.getDictionary(), fieldType.getMetadata());
  }

  /** The vector's tensor type. */
  public FixedShapeTensorType tensorType() {
    return type;
  }

  @Override
  public Field getField() {
    return new Field(getName(), fieldType, getUnderlyingVector().getField().getChildren());
  }

  @Override
  public Object getObject(int index) {
    return getUnderlyingVector().getObject(index);
  }

  @Override
  public int hashCode(int index) {
    return getUnderlyingVector().hashCode(index);
  }

  @Override
  public int hashCode(int index, ArrowBufHasher hasher) {
    return getUnderlyingVector().hashCode(index, hasher);
  }
}
