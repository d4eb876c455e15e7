package dev.zaro.cli;

import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.read.MissingChunks;
import picocli.CommandLine.Option;

/**
 * The options of every command that reads values: decoding threads, fallback types, missing chunks.
 */
final class OpenOptions {
  @Option(
      names = "--threads",
      paramLabel = "T",
      description = "Chunks decoded in parallel per read (default: cores).")
  Integer threads;

  @Option(
      names = "--fallback-types",
      description =
          "Read arrays of types zaro does not interpret"
              + " (bfloat16, float8_*) as their bit patterns (uint16/uint8; the column's field metadata"
              + " zarr.data_type names the type). Off by default: such arrays are refused.")
  boolean fallbackTypes;

  @Option(
      names = "--missing-chunks",
      paramLabel = "fill|error",
      description =
          "What a read does with a chunk"
              + " absent from the store: read it as the fill value (fill, the default, as Zarr says) or fail naming"
              + " its key (error).")
  MissingChunks missingChunks = MissingChunks.FILL;

  @Option(
      names = "--max-requests",
      paramLabel = "N",
      description =
          "Remote stores: chunk (or shard) requests one read keeps in flight (default: 256; the"
              + " bytes budget and the per-host limit may keep fewer).")
  Integer maxRequests;

  @Option(
      names = "--max-bytes-in-flight",
      paramLabel = "MIB",
      description =
          "Remote stores: MiB of fetched chunks one read holds ahead of its decoders (default: 256).")
  Long maxMibInFlight;

  ZaroOptions toOptions() {
    ZaroOptions options =
        ZaroOptions.defaults().withFallbackTypes(fallbackTypes).withMissingChunks(missingChunks);
    if (maxRequests != null) {
      options = options.withIoConcurrency(maxRequests);
    }
    if (maxMibInFlight != null) {
      options = options.withMaxBytesInFlight(maxMibInFlight << 20);
    }
    return threads == null ? options : options.withThreads(threads);
  }
}
