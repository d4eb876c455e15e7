package dev.zaro.trino;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.plan.Selection;
import dev.zaro.arrow.read.Node;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The catalog's schemas and tables, listed once from the store's hierarchy: every group is a schema
 * (the root group {@code default}, a subgroup its path, {@code a/b}), every array a table of its
 * group's schema, named by the array's name (the root array of a store that is one array: {@code
 * data}). Trino's names are lower case: where two nodes differ only in case, the first listed keeps
 * the name. A table's columns are zaro's table layout from metadata alone; an array the layout or
 * Trino cannot show (complex values, durations) is not a table.
 */
final class ZarrTables {
  /** The root group's schema. */
  static final String ROOT_SCHEMA = "default";

  private final ZarrConnector connector;
  private volatile Listing listing;
  private final Map<String, Optional<List<ZarrColumnHandle>>> columns = new ConcurrentHashMap<>();

  /** Schema (lower case) -> group path; table -> array path. */
  private record Listing(Map<String, String> schemas, Map<SchemaTableName, String> tables) {}

  ZarrTables(ZarrConnector connector) {
    this.connector = connector;
  }

  private Listing listing() {
    Listing l = listing;
    if (l == null) {
      synchronized (this) {
        if (listing == null) {
          Zaro zaro = connector.zaro();
          try {
            listing = list(zaro);
          } catch (ZaroException e) {
            throw connector.storeError("list", e);
          }
        }
        l = listing;
      }
    }
    return l;
  }

  private static Listing list(Zaro zaro) {
    Map<String, String> schemas = new TreeMap<>();
    Map<SchemaTableName, String> tables =
        new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    schemas.put(ROOT_SCHEMA, "");
    List<Node> nodes = zaro.list();
    for (Node node : nodes) {
      if (!node.isArray() && !node.path().isEmpty()) {
        schemas.putIfAbsent(lower(node.path()), node.path());
      }
    }
    for (Node node : nodes) {
      if (node.isArray()) {
        String path = node.path();
        int slash = path.lastIndexOf('/');
        String group = slash < 0 ? "" : path.substring(0, slash);
        String schema = group.isEmpty() ? ROOT_SCHEMA : lower(group);
        schemas.putIfAbsent(schema, group);
        String table = path.isEmpty() ? "data" : lower(path.substring(slash + 1));
        tables.putIfAbsent(new SchemaTableName(schema, table), path);
      }
    }
    return new Listing(schemas, tables);
  }

  static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }

  List<String> schemas() {
    return List.copyOf(listing().schemas().keySet());
  }

  boolean schemaExists(String schema) {
    return listing().schemas().containsKey(schema);
  }

  /** The tables of {@code schema} (every schema when empty) that Trino can show. */
  List<SchemaTableName> tables(Optional<String> schema) {
    List<SchemaTableName> out = new ArrayList<>();
    for (Map.Entry<SchemaTableName, String> e : listing().tables().entrySet()) {
      if (schema.map(s -> s.equals(e.getKey().getSchemaName())).orElse(true)
          && columns(e.getValue()).isPresent()) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /** The array path of a table, or empty. */
  Optional<String> path(SchemaTableName name) {
    return Optional.ofNullable(listing().tables().get(name));
  }

  /**
   * The columns of the array at {@code path}: dimension columns, non-dimension coordinates, value
   * column(s); empty when Trino has no type for one of them.
   */
  Optional<List<ZarrColumnHandle>> columns(String path) {
    return columns.computeIfAbsent(path, this::layout);
  }

  private Optional<List<ZarrColumnHandle>> layout(String path) {
    Zaro zaro = connector.zaro();
    List<Field> fields;
    int rank;
    try {
      long[] shape = zaro.meta(path).shape();
      rank = shape.length;
      fields = zaro.tableSchema(path, Selection.all(shape), connector.tableOptions()).getFields();
    } catch (ZaroException e) {
      return Optional.empty(); // an array the table layout cannot show
    }
    List<ZarrColumnHandle> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int c = 0; c < fields.size(); c++) {
      Field f = fields.get(c);
      Optional<Type> type = TrinoColumns.type(f);
      if (type.isEmpty()) {
        return Optional.empty();
      }
      if (names.add(lower(f.getName()))) {
        out.add(new ZarrColumnHandle(f.getName(), type.get(), c < rank ? c : -1));
      }
    }
    return Optional.of(List.copyOf(out));
  }
}
