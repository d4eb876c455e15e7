package dev.zaro.trino;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.trino.spi.SplitWeight;
import io.trino.spi.connector.ConnectorSplit;
import java.util.Map;

/**
 * One piece of a table's read plan, chunk-aligned (shard-aligned where the array is sharded): the
 * array and the piece's selection as canonical text (a few dozen bytes); the worker plans and reads
 * it through its catalog's own open store.
 *
 * @param rows rows of the piece, at most the table's limit
 * @param weight the piece's share of the standard split size, for Trino's scheduling
 */
public record ZarrSplit(
    @JsonProperty("path") String path,
    @JsonProperty("selection") String selection,
    @JsonProperty("rows") long rows,
    @JsonProperty("weight") double weight)
    implements ConnectorSplit {

  /**
   * Jackson's creator, from the JSON object as a map. Trino's server deserializes handles with
   * Jackson's Blackbird, which turns a creator taking the properties of a class in a plugin's class
   * loader into generated code that calls a Blackbird class the plugin class loader does not see
   * (NoClassDefFoundError on every split once the plugin is loaded from its directory:
   * PluginDirectoryIT); a creator delegating to a JDK type it leaves alone.
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ZarrSplit fromJson(Map<String, Object> json) {
    return new ZarrSplit(
        (String) json.get("path"),
        (String) json.get("selection"),
        ((Number) json.get("rows")).longValue(),
        ((Number) json.get("weight")).doubleValue());
  }

  @Override
  public SplitWeight getSplitWeight() {
    return SplitWeight.fromProportion(Math.min(1.0, Math.max(0.01, weight)));
  }

  @Override
  public long getRetainedSizeInBytes() {
    return 64L + 2L * (path.length() + selection.length());
  }
}
