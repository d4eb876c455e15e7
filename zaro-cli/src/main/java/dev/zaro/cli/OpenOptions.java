package dev.zaro.cli;

import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.read.MissingChunks;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of every command that reads values: decoding threads, ML float bits, missing chunks,
 * and the remote stores' timeouts and caps ({@link RemoteOptions}).
 */
final class OpenOptions {
  @Mixin RemoteOptions remote = new RemoteOptions();

  @Option(
      names = "--threads",
      paramLabel = "T",
      description = "Chunks decoded in parallel per read (default: cores).")
  Integer threads;

  @Option(
      names = {"--raw-bits", "--fallback-types"},
      description =
          "Read the ML float types (bfloat16, float8_*, float6_*, float4_e2m1fn) as their bit"
              + " patterns (uint16/uint8) instead of float32 values; either way the column's field"
              + " metadata zarr.data_type names the stored type. --fallback-types is the old name.")
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
        remote
            .apply(ZaroOptions.defaults())
            .withFallbackTypes(fallbackTypes)
            .withMissingChunks(missingChunks);
    if (maxRequests != null) {
      options = options.withIoConcurrency(maxRequests);
    }
    if (maxMibInFlight != null) {
      options = options.withMaxBytesInFlight(maxMibInFlight << 20);
    }
    return threads == null ? options : options.withThreads(threads);
  }
}
