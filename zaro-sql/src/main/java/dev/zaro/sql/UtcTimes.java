package dev.zaro.sql;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Timestamps as the Flight SQL service sends them: a timestamp without a time zone is sent as a
 * timestamp with time zone {@code UTC}, holding the same values.
 *
 * <p>Every timestamp zaro makes is an instant counted from 1970-01-01 UTC: a CF time ("days since
 * ...", UTC by the CF conventions unless its units say otherwise, which zaro applies) or a numpy
 * datetime64 (UTC by numpy's convention), and DuckDB's arithmetic on them keeps that meaning. Sent
 * without a time zone, the Arrow Flight SQL JDBC driver has no instant to give at all ({@code
 * getObject(i, Instant.class)} and {@code OffsetDateTime.class} are refused) and its {@code
 * getTimestamp} and {@code getObject} shift the value by the client JVM's zone
 * (apache/arrow-java#732); with {@code UTC}, {@code getObject(i, Instant.class)}, {@code
 * OffsetDateTime.class} and {@code ZonedDateTime.class} give the right instant in any JVM zone.
 * pyarrow and DuckDB read the same instants either way (now as {@code timestamp[us, tz=UTC]}).
 * Nested fields are retyped too; a result with dictionary-encoded columns (DuckDB's ENUM) is passed
 * through unchanged.
 */
final class UtcTimes {
  private UtcTimes() {}

  /** {@code schema} with each timestamp without a time zone, at any depth, in UTC. */
  static Schema schema(Schema schema) {
    List<Field> fields = new ArrayList<>();
    for (Field f : schema.getFields()) {
      fields.add(field(f));
    }
    return new Schema(fields, schema.getCustomMetadata());
  }

  private static Field field(Field f) {
    ArrowType type = f.getType();
    if (type instanceof ArrowType.Timestamp t && t.getTimezone() == null) {
      type = new ArrowType.Timestamp(t.getUnit(), "UTC");
    }
    List<Field> children = new ArrayList<>();
    for (Field c : f.getChildren()) {
      children.add(field(c));
    }
    FieldType ft = f.getFieldType();
    return new Field(
        f.getName(),
        new FieldType(ft.isNullable(), type, ft.getDictionary(), ft.getMetadata()),
        children);
  }

  private static boolean hasDictionary(List<Field> fields) {
    for (Field f : fields) {
      if (f.getDictionary() != null || hasDictionary(f.getChildren())) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code source} with its batches under {@link #schema}: the same buffers, no copy (the source
   * itself when nothing changes). Closing the returned reader closes {@code source}.
   */
  static ArrowReader reader(ArrowReader source, BufferAllocator allocator) throws IOException {
    Schema from;
    try {
      from = source.getVectorSchemaRoot().getSchema();
    } catch (IOException | RuntimeException e) {
      source.close();
      throw e;
    }
    Schema to = schema(from);
    if (to.equals(from) || hasDictionary(from.getFields())) {
      return source;
    }
    return new Retyped(source, to, allocator);
  }

  /** A reader that loads each batch of its source into a root of another (compatible) schema. */
  private static final class Retyped extends ArrowReader {
    private final ArrowReader source;
    private final Schema schema;

    Retyped(ArrowReader source, Schema schema, BufferAllocator allocator) {
      super(allocator);
      this.source = source;
      this.schema = schema;
    }

    @Override
    public boolean loadNextBatch() throws IOException {
      prepareLoadNextBatch();
      if (!source.loadNextBatch()) {
        return false;
      }
      VectorSchemaRoot batch = source.getVectorSchemaRoot();
      try (ArrowRecordBatch buffers = new VectorUnloader(batch).getRecordBatch()) {
        loadRecordBatch(buffers); // shares the buffers (counted references), no copy
      }
      return true;
    }

    @Override
    public long bytesRead() {
      return source.bytesRead();
    }

    @Override
    protected void closeReadSource() throws IOException {
      source.close();
    }

    @Override
    protected Schema readSchema() {
      return schema;
    }
  }
}
