package dev.zaro.cli;

import dev.zaro.arrow.ZaroOptions;
import dev.zaro.arrow.store.OptionText;
import dev.zaro.arrow.store.RemoteLimits;
import dev.zaro.flight.Sizes;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of every command that reads from a store: how long a remote read may take, how often
 * it is retried, and how much one reply and one metadata document may bring (docs/contracts.md,
 * "The CLI contract", its remote reads; {@link RemoteLimits} says how each is counted). The same
 * names as {@code ZaroOptions.remote} and the Spark options.
 */
final class RemoteOptions {
  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(
      names = "--timeout",
      paramLabel = "S",
      description =
          "Remote stores: the most seconds one key's read may take in all: waiting for the host's"
              + " request limit, every attempt and the backoff between them (default: 300). Past"
              + " it the read fails naming the host, the key and the wait.")
  String timeout;

  @Option(
      names = "--request-timeout",
      paramLabel = "S",
      description =
          "Remote stores: an attempt that receives no byte for S seconds fails and is retried"
              + " (default: 30); each byte restarts the clock.")
  String requestTimeout;

  @Option(
      names = "--retries",
      paramLabel = "N",
      description = "Remote stores: attempts after the first one of a failed request (default: 4).")
  Integer retries;

  @Option(
      names = "--max-object-size",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "Remote stores: the most bytes of one reply that is not a range of known length (a"
              + " whole object); a server announcing more is refused before anything is allocated"
              + " (default: 4g; k/m/g suffixes).")
  Long maxObjectSize;

  @Option(
      names = "--max-metadata-size",
      paramLabel = "SIZE",
      converter = SizeConverter.class,
      description =
          "The most bytes of one metadata document (zarr.json, .zarray, .zmetadata, a kerchunk"
              + " JSON file); a larger one fails naming its key and size (default: 256m).")
  Long maxMetadataSize;

  /**
   * The limits these options give, over {@link RemoteLimits#DEFAULT}.
   *
   * @throws ParameterException (a usage error, naming the option) for a value out of range
   */
  RemoteLimits limits() {
    RemoteLimits limits = RemoteLimits.DEFAULT;
    if (timeout != null) {
      limits = limits.withTimeout(seconds("--timeout", timeout));
    }
    if (requestTimeout != null) {
      limits = limits.withRequestTimeout(seconds("--request-timeout", requestTimeout));
    }
    if (retries != null) {
      limits = limits.withRetries(atLeast("--retries", retries, 0));
    }
    if (maxObjectSize != null) {
      limits = limits.withMaxObjectSize(atLeast("--max-object-size", maxObjectSize, 1));
    }
    if (maxMetadataSize != null) {
      limits = limits.withMaxMetadataSize(atLeast("--max-metadata-size", maxMetadataSize, 1));
    }
    return limits;
  }

  /** {@code options} with these limits. */
  ZaroOptions apply(ZaroOptions options) {
    return options.withRemote(limits());
  }

  /**
   * {@code s} by the one rule for seconds ({@link OptionText#seconds}), refused as a usage error.
   */
  private Duration seconds(String option, String s) {
    try {
      return OptionText.seconds(s, option);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  private <T extends Number> T atLeast(String option, T value, long min) {
    if (value.longValue() < min) {
      throw usage(option + " must be at least " + min + ", not " + value);
    }
    return value;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /** A size as {@code --max-memory} takes it ({@code 512m}, {@code 2g}). */
  static final class SizeConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      return Sizes.parse(value);
    }
  }
}
