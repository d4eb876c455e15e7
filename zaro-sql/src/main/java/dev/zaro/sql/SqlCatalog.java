package dev.zaro.sql;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.flight.FlightErrors;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * What tools browse through {@link ZaroFlightSqlProducer}: the rows of GetDbSchemas and GetTables
 * (every array of the engine is a table of schema {@code main}, in no catalog; the request's LIKE
 * filters applied), and the one batch each browsing command is answered with. Stateless; each
 * answer is built on its own child of the allocator.
 */
final class SqlCatalog {
  private static final String SCHEMA = "main";

  private final Supplier<SqlEngine> engine;
  private final BufferAllocator allocator;

  /**
   * @param engine the producer's engine, made on first use
   * @param allocator the parent of each answer's allocator
   */
  SqlCatalog(Supplier<SqlEngine> engine, BufferAllocator allocator) {
    this.engine = engine;
    this.allocator = allocator;
  }

  /** The FlightInfo of a browsing command: one endpoint whose ticket is the command. */
  static FlightInfo info(Schema schema, FlightDescriptor descriptor, Message command) {
    return new FlightInfo(
        schema,
        descriptor,
        List.of(new FlightEndpoint(new Ticket(Any.pack(command).toByteArray()))),
        -1,
        -1);
  }

  /** GetDbSchemas: {@code main}, unless the request's catalog or pattern rules it out. */
  void schemas(FlightSql.CommandGetDbSchemas command, ServerStreamListener listener) {
    List<Object[]> rows = new ArrayList<>();
    if (inNoCatalog(command.hasCatalog(), command.getCatalog())
        && (!command.hasDbSchemaFilterPattern()
            || like(command.getDbSchemaFilterPattern(), SCHEMA))) {
      rows.add(new Object[] {null, SCHEMA});
    }
    sendRows(Schemas.GET_SCHEMAS_SCHEMA, rows, listener);
  }

  /**
   * GetTables: the engine's tables that the request's filters admit, with their schemas if asked
   * (leaving out arrays the table layout cannot show).
   */
  void tables(FlightSql.CommandGetTables command, ServerStreamListener listener) {
    try {
      List<Object[]> rows = new ArrayList<>();
      boolean schemaMatches =
          !command.hasDbSchemaFilterPattern() || like(command.getDbSchemaFilterPattern(), SCHEMA);
      boolean typeMatches =
          command.getTableTypesCount() == 0 || command.getTableTypesList().contains("TABLE");
      if (inNoCatalog(command.hasCatalog(), command.getCatalog()) && schemaMatches && typeMatches) {
        for (String table : engine.get().tables()) {
          if (command.hasTableNameFilterPattern()
              && !like(command.getTableNameFilterPattern(), table)) {
            continue;
          }
          if (command.getIncludeSchema()) {
            byte[] schema;
            try {
              schema = UtcTimes.schema(engine.get().schema(table)).serializeAsMessage();
            } catch (ZaroException e) {
              continue; // an array the table layout cannot show (complex values, ...)
            }
            rows.add(new Object[] {null, SCHEMA, table, "TABLE", schema});
          } else {
            rows.add(new Object[] {null, SCHEMA, table, "TABLE"});
          }
        }
      }
      sendRows(
          command.getIncludeSchema()
              ? Schemas.GET_TABLES_SCHEMA
              : Schemas.GET_TABLES_SCHEMA_NO_SCHEMA,
          rows,
          listener);
    } catch (RuntimeException e) {
      listener.error(FlightErrors.onWire(ZaroFlightSqlProducer.status(e)));
    }
  }

  /** True when a request's catalog filter admits tables that live in no catalog. */
  private static boolean inNoCatalog(boolean hasCatalog, String catalog) {
    return !hasCatalog || catalog.isEmpty();
  }

  /** SQL LIKE: {@code %} any run, {@code _} one character, {@code \} escapes. */
  static boolean like(String pattern, String value) {
    StringBuilder regex = new StringBuilder();
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '\\' && i + 1 < pattern.length()) {
        regex.append(Pattern.quote(String.valueOf(pattern.charAt(++i))));
      } else if (c == '%') {
        regex.append(".*");
      } else if (c == '_') {
        regex.append('.');
      } else {
        regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(value).matches();
  }

  /** Streams rows of strings (and byte arrays) of a metadata schema as one batch. */
  void sendRows(Schema schema, List<Object[]> rows, ServerStreamListener listener) {
    try (BufferAllocator child = allocator.newChildAllocator("sql metadata", 0, Long.MAX_VALUE);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, child)) {
      root.allocateNew();
      for (int r = 0; r < rows.size(); r++) {
        Object[] row = rows.get(r);
        for (int c = 0; c < row.length; c++) {
          Object v = row[c];
          if (v == null) {
            continue;
          }
          var vector = root.getVector(c);
          if (vector instanceof VarCharVector s) {
            s.setSafe(r, ((String) v).getBytes(StandardCharsets.UTF_8));
          } else if (vector instanceof VarBinaryVector b) {
            b.setSafe(r, (byte[]) v);
          }
        }
      }
      root.setRowCount(rows.size());
      listener.start(root);
      listener.putNext();
      listener.completed();
    } catch (RuntimeException e) {
      listener.error(FlightErrors.onWire(ZaroFlightSqlProducer.status(e)));
    }
  }
}
