package dev.zaro.flight;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;

/**
 * The HTTP port's query parameters made into the requests the Flight service takes: a describe and
 * a read. An unknown, repeated or malformed parameter is INVALID_ARGUMENT naming it (400).
 */
final class HttpRequestParams {
  private static final Set<String> READ_PARAMS =
      Set.of("slice", "layout", "columns", "compression", "raw", "timeout");

  private HttpRequestParams() {}

  /** {@code GET /describe/{group}?inline_bytes=N&recursive=true|false}. */
  static GroupDescription.Request describe(String group, Map<String, List<String>> params) {
    for (String name : params.keySet()) {
      if (!name.equals("inline_bytes") && !name.equals("recursive")) {
        throw invalid(
            "unknown query parameter '" + name + "' (describe takes: inline_bytes, recursive)");
      }
    }
    String inline = one(params, "inline_bytes");
    long bytes = GroupDescription.DEFAULT_INLINE_BYTES;
    if (inline != null) {
      try {
        bytes = Long.parseLong(inline);
      } catch (NumberFormatException e) {
        bytes = -1;
      }
      if (bytes < 0) {
        throw invalid("inline_bytes must be a non-negative integer, not '" + inline + "'");
      }
    }
    String recursive = one(params, "recursive");
    if (recursive != null && !recursive.equals("true") && !recursive.equals("false")) {
      throw invalid("recursive must be true or false, not '" + recursive + "'");
    }
    return new GroupDescription.Request(group, bytes, "true".equals(recursive));
  }

  /** {@code GET /arrays/{node}?slice=&layout=&columns=&compression=&raw=&timeout=}. */
  static ReadRequest read(String node, Map<String, List<String>> params) {
    for (Map.Entry<String, List<String>> e : params.entrySet()) {
      if (!READ_PARAMS.contains(e.getKey())) {
        throw invalid(
            "unknown query parameter '"
                + e.getKey()
                + "' (zaro reads: slice, layout, columns, compression, raw, timeout)");
      }
      if (e.getValue().size() != 1) {
        throw invalid("query parameter '" + e.getKey() + "' is given more than once");
      }
    }
    String raw = one(params, "raw");
    if (raw != null && !raw.equals("true") && !raw.equals("false")) {
      throw invalid("raw must be true or false, not '" + raw + "'");
    }
    String columns = one(params, "columns");
    String timeout = one(params, "timeout");
    return new ReadRequest(
        node,
        one(params, "slice"),
        one(params, "layout"),
        "true".equals(raw),
        WireCompression.parse(one(params, "compression")),
        columns == null ? null : Arrays.asList(columns.split(",", -1)),
        timeout == null ? null : ReadRequest.seconds(timeout, null));
  }

  private static String one(Map<String, List<String>> params, String name) {
    List<String> v = params.get(name);
    return v == null ? null : v.get(0);
  }

  private static FlightRuntimeException invalid(String message) {
    return CallStatus.INVALID_ARGUMENT.withDescription(message).toRuntimeException();
  }
}
