package dev.zaro.cli;

import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.Node;
import dev.zaro.flight.ServerOptions;
import dev.zaro.flight.Sizes;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * What {@code zaro serve} prints once it listens: the address it bound, and examples to copy that
 * work on the store served (its first array, a slice that fits its shape).
 */
final class ServeBanner {
  /** Rows the example reads (fewer when the array has fewer). */
  private static final long EXAMPLE_ROWS = 24;

  private final String host;
  private final ServerOptions options;
  private final boolean insecure;
  private final boolean sql;

  /**
   * @param host the {@code --host} given
   * @param insecure whether {@code --insecure} was given
   * @param sql whether Flight SQL is served too
   */
  ServeBanner(String host, ServerOptions options, boolean insecure, boolean sql) {
    this.host = host;
    this.options = options;
    this.insecure = insecure;
    this.sql = sql;
  }

  /** Whether {@code host} is a wildcard address (every interface). */
  static boolean isWildcard(String host) {
    try {
      return InetAddress.getByName(host).isAnyLocalAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The address a bind to {@code host} takes: its first address, as a URI writes it. */
  static String bound(String host) {
    try {
      InetAddress a = InetAddress.getByName(host);
      return a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
    } catch (UnknownHostException e) {
      return host;
    }
  }

  /**
   * The host clients on this machine use in the examples: loopback for a wildcard bind, else the
   * host as given (a name, which TLS certificates name, or an address).
   */
  private String connectHost() {
    if (isWildcard(host)) {
      return bound(host).startsWith("[") ? "[::1]" : "127.0.0.1";
    }
    return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
  }

  private String scheme() {
    return options.tls() != null ? "grpc+tls://" : "grpc://";
  }

  /** Prints the banner for a server listening on {@code port} (and {@code http}, or -1). */
  void print(PrintStream out, String location, Zaro zaro, int port, int http) {
    boolean tls = options.tls() != null;
    String uri = scheme() + connectHost() + ":" + port;
    String at = scheme() + bound(host) + ":" + port;
    String where =
        isWildcard(host)
            ? at + " (every interface; on this machine " + uri + ")"
            : at.equals(uri) ? at : at + " (" + host + ")";
    out.println(
        "zaro: serving "
            + location
            + " at "
            + where
            + (tls ? " (TLS)" : "")
            + (options.tokens() != null ? " (bearer tokens)" : "")
            + ", memory budget "
            + Sizes.human(options.maxMemory())
            + " (Ctrl-C stops)");
    String warning = warning(port);
    if (warning != null) {
      out.println("zaro: warning: " + warning);
    }
    out.println();
    out.println("  import pyarrow as pa, pyarrow.flight as fl");
    out.println(
        "  client = fl.connect(\""
            + uri
            + "\""
            + (tls ? ", tls_root_certs=open(\"CA.pem\", \"rb\").read()" : "")
            + ")");
    String call = "";
    if (options.tokens() != null) {
      out.println(
          "  opts = fl.FlightCallOptions(headers=[(b\"authorization\", b\"Bearer \" + TOKEN)])");
      call = ", opts";
    }
    out.println(
        "  for info in client.list_flights("
            + (call.isEmpty() ? "" : "options=opts")
            + "): print(info.descriptor.path, info.total_records)");
    Node first = firstArray(zaro);
    if (first != null) {
      out.println("  info = client.get_flight_info(fl.FlightDescriptor.for_command(");
      out.println(
          "      '{\"array\": \""
              + jsonText(first.path().isEmpty() ? "/" : first.path())
              + "\", \"slice\": \""
              + slice((ArrayMetadata) first.metadata())
              + "\", \"layout\": \"tensor\"}')"
              + call
              + ")");
      // a large read comes back as several endpoints: read them all
      out.println(
          "  table = pa.concat_tables(client.do_get(e.ticket"
              + call
              + ").read_all() for e in info.endpoints)");
    }
    if (sql) {
      out.println();
      out.println(
          "  Flight SQL (JDBC): jdbc:arrow-flight-sql://"
              + connectHost()
              + ":"
              + port
              + "/?useEncryption="
              + tls
              + (options.tokens() != null ? "&token=TOKEN" : ""));
    }
    if (http >= 0) {
      out.println(
          "  HTTP: "
              + (tls ? "https://" : "http://")
              + connectHost()
              + ":"
              + http
              + "/arrays/{path} (Arrow IPC stream)");
      out.println(
          "  Explorer: "
              + (tls ? "https://" : "http://")
              + connectHost()
              + ":"
              + http
              + "/ (open it in a browser: docs/explorer.md)");
    }
    out.flush();
  }

  /** What {@code --insecure} let through on this address, or null. */
  private String warning(int port) {
    if (!insecure || ServeCommand.isLoopback(host)) {
      return null;
    }
    if (options.tokens() == null) {
      return "--insecure: no authentication; anyone who can reach "
          + bound(host)
          + ":"
          + port
          + " can read every array";
    }
    if (options.tls() == null) {
      return "--insecure: no TLS; bearer tokens cross the network in clear text"
          + " (--tls-cert FILE --tls-key FILE encrypts them)";
    }
    return null;
  }

  /** The first array of the hierarchy (in listing order), or null for a store without one. */
  static Node firstArray(Zaro zaro) {
    for (Node n : zaro.list()) {
      if (n.isArray()) {
        return n;
      }
    }
    return null;
  }

  /** A slice of the first dimension that fits the array ("" for a 0-d array: all of it). */
  static String slice(ArrayMetadata meta) {
    long[] shape = meta.shape();
    return shape.length == 0 ? "" : "0:" + Math.min(EXAMPLE_ROWS, shape[0]);
  }

  private static String jsonText(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("'", "\\u0027");
  }
}
