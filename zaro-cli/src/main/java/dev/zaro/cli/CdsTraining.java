package dev.zaro.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.zaro.flight.ZaroFlightServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightDescriptor;
import org.apache.arrow.flight.FlightEndpoint;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import picocli.CommandLine;

/**
 * The training runs behind the {@code ./zaro} launcher's class-data-sharing archives: runs {@code
 * ls}, {@code info}, {@code read} (both layouts), {@code sql} and {@code bench}, or {@code serve},
 * on the bundled sample in one JVM, output discarded, so that the JVM started with {@code
 * -XX:DumpLoadedClassList} lists the classes these commands load, which {@code -Xshare:dump} then
 * archives. Not a user command.
 */
final class CdsTraining {
  private CdsTraining() {}

  /**
   * Runs the commands; {@code args[0]} is the sample store, {@code args[1]} {@code serve} for the
   * archive of {@code serve} alone (its own: serving loads about 1,100 classes no other command
   * needs), {@code remote} for the archive of commands whose arguments name a remote store (the
   * other commands, then a read over http, over S3 and over https: about 2,400 classes more, which
   * would slow a local command's start), anything else or nothing for the other commands.
   *
   * @param args the sample store's path, and the mode
   * @throws Exception when the temporary directory cannot be made
   */
  public static void main(String[] args) throws Exception {
    String store = args[0];
    boolean serving = args.length > 1 && args[1].equals("serve");
    boolean remote = args.length > 1 && args[1].equals("remote");
    Path dir = Files.createTempDirectory("zaro-cds");
    PrintStream out = System.out;
    PrintStream err = System.err;
    int failed = 0;
    try (PrintStream discard = new PrintStream(OutputStream.nullOutputStream())) {
      System.setOut(discard);
      System.setErr(discard);
      String[][] runs = {
        {"--version"},
        {"ls", store},
        {"info", store, "t2m"},
        {"read", store, "t2m", "--slice", "0:2", "--out", dir.resolve("a.arrow").toString()},
        {
          "read",
          store,
          "t2m",
          "--slice",
          "0:1",
          "--layout",
          "table",
          "--out",
          dir.resolve("b.arrow").toString()
        },
        {"sql", store, "select 1"},
        {"sql", store, "select avg(t2m), count(*) from t2m where lat between 30 and 60", "--stats"},
        {"sql", "--help"},
        // bench's process CPU counters (java.lang.management, about 60 classes) for a cold bench
        {"bench", store, "t2m", "--slice", "0:1", "--warmup", "0", "--repeat", "1"}
      };
      if (serving) {
        failed += Main.run("--version") == 0 ? 0 : 1;
        failed += serve(store) ? 0 : 1;
      } else {
        for (String[] run : runs) {
          failed += Main.run(run) == 0 ? 0 : 1;
        }
        if (remote) {
          failed += overHttp(Path.of(store), dir);
        }
      }
    } finally {
      System.setOut(out);
      System.setErr(err);
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
    if (failed > 0) {
      System.err.println("zaro: class-data-sharing training: " + failed + " command(s) failed");
    }
  }

  /**
   * A {@code read} of the sample over http, over S3 (a path-style endpoint) and over https, each
   * from a server on a free loopback port: the classes of zaro's HTTP client, the S3 store, its TLS
   * (BoringSSL through Netty where it loads, else the JDK's) and the certificate check, which a
   * first remote read otherwise loads outside the archive (about 1,400 over https:
   * benchmarks/README.md, "C2 for the hot loops"). The https server's certificate is the checkout's
   * {@code testdata/tls} (a loopback test certificate), trusted for this run only; without it,
   * https is skipped.
   *
   * @return the number of reads that failed
   */
  private static int overHttp(Path store, Path dir) {
    Path root = store.toAbsolutePath().getParent();
    Path tls = root.getParent().resolve("tls");
    Path key = tls.resolve("loopback-key.p12");
    Path trust = tls.resolve("loopback-trust.p12");
    int failed = 0;
    try {
      HttpServer http =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      failed += readOver(http, "http", root, store, dir);
      HttpServer s3 =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      failed += readOver(s3, "s3", root, store, dir);
      if (Files.isReadable(key) && Files.isReadable(trust)) {
        HttpsServer https =
            HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(serverContext(key)));
        System.setProperty("javax.net.ssl.trustStore", trust.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", TLS_PASSWORD);
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
        failed += readOver(https, "https", root, store, dir);
      }
    } catch (IOException | GeneralSecurityException e) {
      // no loopback server here (or no key): the archive keeps what the other commands loaded
      failed++;
    }
    return failed;
  }

  /** The password of {@code testdata/tls}'s key stores (see its {@code make.sh}). */
  private static final String TLS_PASSWORD = "zarotest";

  private static SSLContext serverContext(Path key) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(key)) {
      store.load(in, TLS_PASSWORD.toCharArray());
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, TLS_PASSWORD.toCharArray());
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }

  /** The bucket of the training's S3 read. */
  private static final String BUCKET = "zaro-cds";

  /**
   * Serves {@code root}'s files on {@code server}, reads the sample through it, and stops it. With
   * {@code scheme} {@code s3}, the server is a path-style S3 endpoint of bucket {@value #BUCKET}
   * and the read is anonymous: the classes of an {@code s3://} read whose GETs go through zaro's
   * client (the store, the SDK's endpoint rules), about 480 that a first S3 command otherwise loads
   * from jars.
   */
  private static int readOver(HttpServer server, String scheme, Path root, Path store, Path dir) {
    boolean s3 = scheme.equals("s3");
    String prefix = s3 ? "/" + BUCKET + "/" : "/";
    server.createContext(prefix, exchange -> serveFile(exchange, root, prefix));
    server.start();
    try {
      String address = "127.0.0.1:" + server.getAddress().getPort();
      String url =
          s3
              ? "s3://"
                  + BUCKET
                  + "/"
                  + store.getFileName()
                  + "?endpoint=http://"
                  + address
                  + "&anonymous=true&region=us-east-1"
              : scheme + "://" + address + "/" + store.getFileName();
      String out = dir.resolve(scheme + ".arrow").toString();
      return Main.run("read", url, "t2m", "--slice", "0:2", "--out", out) == 0 ? 0 : 1;
    } finally {
      server.stop(0);
    }
  }

  /**
   * A GET of one file under {@code root} (the path after {@code prefix}): the whole file, or the
   * one range asked for ({@code bytes=a-b}, {@code bytes=a-}, or the last n bytes {@code bytes=-n},
   * as a shard's index is read).
   */
  private static void serveFile(HttpExchange exchange, Path root, String prefix)
      throws IOException {
    try (exchange) {
      Path file =
          root.resolve(exchange.getRequestURI().getPath().substring(prefix.length())).normalize();
      if (!file.startsWith(root) || !Files.isRegularFile(file)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      byte[] bytes = Files.readAllBytes(file);
      int from = 0;
      int to = bytes.length;
      String range = exchange.getRequestHeaders().getFirst("Range");
      Matcher m = range == null ? null : RANGE.matcher(range);
      boolean ranged = m != null && m.matches() && !(m.group(1) + m.group(2)).isEmpty();
      if (ranged) {
        if (m.group(1).isEmpty()) {
          from = (int) Math.max(0, bytes.length - Long.parseLong(m.group(2)));
        } else {
          from = (int) Math.min(bytes.length, Long.parseLong(m.group(1)));
          to = m.group(2).isEmpty() ? to : (int) Math.min(to, Long.parseLong(m.group(2)) + 1);
        }
        exchange
            .getResponseHeaders()
            .set("Content-Range", "bytes " + from + "-" + (to - 1) + "/" + bytes.length);
      }
      exchange.sendResponseHeaders(ranged ? 206 : 200, to - from);
      exchange.getResponseBody().write(bytes, from, to - from);
    }
  }

  /**
   * {@code GET path} from the loopback HTTP port, the answer read and dropped (a plain socket: no
   * HTTP client's classes for the archive); a failure is dropped too (the archive then lacks only
   * those classes).
   */
  private static void httpGet(int port, String path) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket
          .getOutputStream()
          .write(
              ("GET "
                      + path
                      + " HTTP/1.1\r\nHost: 127.0.0.1:"
                      + port
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      socket.getInputStream().readAllBytes();
    } catch (IOException e) {
      // the training goes on: only these classes are missing from the archive
    }
  }

  private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");

  /**
   * {@code serve --sql --http-port 0} on a free loopback port up to its banner, then one listing
   * and one read through a Flight client and the explorer's first answers over HTTP (pictures,
   * sizes on disk), then stops: the classes the server loads before its banner (gRPC, Netty,
   * protobuf, DuckDB) and those of a first request, so a fresh server's first picture does not load
   * its classes from the jar.
   */
  private static boolean serve(String store) {
    CommandLine cli = new CommandLine(new ServeCommand());
    cli.parseArgs(store, "--port", "0", "--sql", "--http-port", "0");
    ServeCommand serve = cli.getCommand();
    try (BufferAllocator allocator = new RootAllocator()) {
      ZaroFlightServer server = serve.start();
      // closed by hand: their close() may throw InterruptedException, which try-with-resources
      // should not hide (javac's lint)
      FlightClient client =
          FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.port()))
              .build();
      try {
        serve.printBanner(server);
        client.listFlights(Criteria.ALL).forEach(info -> {});
        FlightInfo info =
            client.getInfo(
                FlightDescriptor.command(
                    "{\"array\": \"t2m\", \"slice\": \"0:1\"}".getBytes(StandardCharsets.UTF_8)));
        for (FlightEndpoint endpoint : info.getEndpoints()) {
          FlightStream stream = client.getStream(endpoint.getTicket());
          try {
            while (stream.next()) {
              stream.getRoot().getRowCount();
            }
          } finally {
            stream.close();
          }
        }
        for (String path :
            new String[] {
              "/arrays/t2m/image.png?slice=0,:,:",
              "/arrays/precip/image.png?slice=0,:,:",
              "/sizes.json"
            }) {
          httpGet(serve.httpPort(), path);
        }
      } finally {
        client.close();
        server.close();
        serve.zaro().close();
      }
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
