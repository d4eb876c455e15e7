package dev.zaro.cli;

import dev.zaro.arrow.ZaroOptions;
import picocli.CommandLine.Option;

/** The options of every command that reads values: decoding threads and fallback types. */
final class OpenOptions {
  @Option(names = "--threads", paramLabel = "T", description = "Chunks decoded in parallel per read (default: cores).")
  Integer threads;

  @Option(names = "--fallback-types", description = "Read arrays of types zaro does not interpret"
      + " (bfloat16, float8_*) as their bit patterns (uint16/uint8; the column's field metadata"
      + " zarr.data_type names the type). Off by default: such arrays are refused.")
  boolean fallbackTypes;

  ZaroOptions toOptions() {
    ZaroOptions options = ZaroOptions.defaults().withFallbackTypes(fallbackTypes);
    return threads == null ? options : options.withThreads(threads);
  }
}
