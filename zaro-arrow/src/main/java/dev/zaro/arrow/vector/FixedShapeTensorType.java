package dev.zaro.arrow.vector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.ExtensionTypeRegistry;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The canonical Arrow extension type {@code arrow.fixed_shape_tensor}: each row is a C-order tensor
 * of {@code shape}, stored as a {@code FixedSizeList<value, prod(shape)>}. pyarrow reads it as a
 * {@code FixedShapeTensorArray}.
 */
public final class FixedShapeTensorType extends ArrowType.ExtensionType {
  /** The extension name, as Arrow's canonical extension type registers it. */
  public static final String NAME = "arrow.fixed_shape_tensor";

  static {
    ExtensionTypeRegistry.register(new FixedShapeTensorType(new long[] {1}, null));
  }

  private final long[] shape;
  private final java.util.List<String> dimNames;

  /**
   * @param dimNames one per dimension of {@code shape}, or null
   */
  public FixedShapeTensorType(long[] shape, java.util.List<String> dimNames) {
    if (dimNames != null && dimNames.size() != shape.length) {
      throw new IllegalArgumentException(
          "dim_names " + dimNames + " do not match shape " + Arrays.toString(shape));
    }
    this.shape = shape.clone();
    this.dimNames = dimNames == null ? null : java.util.List.copyOf(dimNames);
  }

  /** Makes sure the type is registered, so IPC readers in this JVM recognize it. */
  public static void register() {
    // the static initializer does the work
  }

  /** The shape of each tensor (one per row). */
  public long[] shape() {
    return shape.clone();
  }

  /** The dimension names, or empty. */
  public java.util.List<String> dimNames() {
    return dimNames;
  }

  /** Values per row. */
  public int listSize() {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    return Math.toIntExact(n);
  }

  @Override
  public ArrowType storageType() {
    return new ArrowType.FixedSizeList(listSize());
  }

  @Override
  public String extensionName() {
    return NAME;
  }

  @Override
  public boolean extensionEquals(ExtensionType other) {
    return other instanceof FixedShapeTensorType t
        && Arrays.equals(shape, t.shape)
        && Objects.equals(dimNames, t.dimNames);
  }

  @Override
  public String serialize() {
    ObjectNode json = Json.createObjectNode();
    ArrayNode s = json.putArray("shape");
    for (long d : shape) {
      s.add(d);
    }
    if (dimNames != null) {
      ArrayNode names = json.putArray("dim_names");
      dimNames.forEach(names::add);
    }
    return json.toString();
  }

  @Override
  public ArrowType deserialize(ArrowType storageType, String serializedData) {
    try {
      JsonNode json = Json.readTree(serializedData);
      JsonNode s = json.get("shape");
      long[] shape = new long[s.size()];
      for (int i = 0; i < shape.length; i++) {
        shape[i] = s.get(i).longValue();
      }
      java.util.List<String> names = null;
      if (json.has("dim_names")) {
        names = new ArrayList<>();
        for (JsonNode n : json.get("dim_names")) {
          names.add(n.asText());
        }
      }
      return new FixedShapeTensorType(shape, names);
    } catch (Exception e) {
      throw new IllegalArgumentException("invalid " + NAME + " metadata: " + serializedData, e);
    }
  }

  @Override
  public FieldVector getNewVector(String name, FieldType fieldType, BufferAllocator allocator) {
    FixedSizeListVector storage =
        new FixedSizeListVector(
            name, allocator, new FieldType(fieldType.isNullable(), storageType(), null), null);
    return new FixedShapeTensorVector(name, allocator, this, fieldType, storage);
  }

  @Override
  public String toString() {
    return NAME + Arrays.toString(shape);
  }
}
