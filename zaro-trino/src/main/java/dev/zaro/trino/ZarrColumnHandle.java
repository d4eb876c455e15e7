package dev.zaro.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.type.Type;
import java.util.Map;
import java.util.Optional;

/**
 * A column of a table: its name in zaro's table layout (as the store spells it; Trino's column name
 * is its lower case), its Trino type, and the array dimension it indexes (-1 for value and
 * non-dimension coordinate columns).
 */
public record ZarrColumnHandle(
    @JsonProperty("name") String name,
    @JsonProperty("type") Type type,
    @JsonProperty("dimension") int dimension)
    implements ColumnHandle {

  /**
   * Jackson's creator, from the JSON object as a map, as {@link ZarrSplit#fromJson}'s; the type is
   * its id as Trino writes it, one of the types the connector gives columns.
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ZarrColumnHandle fromJson(Map<String, Object> json) {
    return new ZarrColumnHandle(
        (String) json.get("name"),
        TrinoColumns.type((String) json.get("type")),
        ((Number) json.get("dimension")).intValue());
  }

  ColumnMetadata metadata() {
    return ColumnMetadata.builder()
        .setName(name)
        .setType(type)
        .setNullable(dimension < 0)
        .setComment(Optional.ofNullable(dimension >= 0 ? "dimension " + dimension : null))
        .build();
  }
}
