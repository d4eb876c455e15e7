package dev.zaro.arrow.store;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * A loopback HTTP server for store tests: serves the files under a directory with RFC 7233 Range
 * support (prefix, open-ended and suffix ranges, 416), and injects faults on demand. Paths under
 * {@code private/} answer 403. Redirects: {@code moved/P} answers 301 to {@code /P}, {@code
 * elsewhere/P} 307 to the absolute URL of {@code moved/P}, {@code loop/P} 302 to itself and {@code
 * plain/P} 302 to {@code http://127.0.0.1:1/P}. {@code /storage/v1/b/BUCKET/o?prefix=P} answers
 * like the Google Cloud Storage JSON listing API (two names or prefixes a page, {@code delimiter}
 * too), over {@code root/BUCKET}; {@code /BUCKET?list-type=2&prefix=P} like S3's {@code
 * ListObjectsV2} (two keys a page).
 */
public final class TestHttpServer implements AutoCloseable {
  /** What the next request gets instead of a normal reply. */
  public enum Fault {
    /** HTTP 500. */
    ERROR_500,
    /** HTTP 503 with Retry-After: 0. */
    ERROR_503,
    /** HTTP 429. */
    TOO_MANY,
    /** HTTP 403 with S3's error XML (SignatureDoesNotMatch), as S3 refuses a bad signature. */
    DENIED_XML,
    /**
     * HTTP 301 with S3's PermanentRedirect XML and {@code x-amz-bucket-region: us-west-2}, no
     * {@code Location}: what S3 answers a request sent to another region's endpoint.
     */
    WRONG_REGION,
    /** HTTP 500 with a plain-text body over several lines. */
    ERROR_500_TEXT,
    /** HTTP 500 with a binary body. */
    ERROR_500_BINARY,
    /** No reply at all until the server stops. */
    HANG,
    /** Headers and half the body, then nothing. */
    HANG_BODY,
    /** Headers with the full length, half the body, then the connection closes. */
    TRUNCATE,
    /** A 206 whose Content-Range is one byte off. */
    WRONG_CONTENT_RANGE,
    /** A 206 with the Content-Range asked for, but a body one byte longer (complete, framed). */
    LONG_BODY,
    /** A 206 with the Content-Range asked for, but a body one byte shorter (complete, framed). */
    SHORT_BODY,
    /** The reply without Content-Length (chunked transfer coding). */
    CHUNKED,
    /** A reply announcing a terabyte (Content-Length 2^40), 16 bytes of it, then a close. */
    HUGE_LENGTH
  }

  static {
    // headers and body go out in separate writes: without TCP_NODELAY, Nagle and delayed ACKs
    // add ~40 ms to every reply (read once, when the JDK's server classes load)
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private static final Pattern RANGE = Pattern.compile("bytes=(\\d*)-(\\d*)");

  private final HttpServer server;
  private final String scheme;
  private final ExecutorService executor =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "test-http");
            t.setDaemon(true);
            return t;
          });
  private final Path root;
  private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
  public final AtomicInteger requests = new AtomicInteger();
  public final AtomicInteger inFlight = new AtomicInteger();
  public final AtomicInteger maxInFlight = new AtomicInteger();
  public final Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
  public final List<String> rangeHeaders = Collections.synchronizedList(new ArrayList<>());
  public volatile boolean ignoreRange;
  public volatile long latencyMillis;

  /**
   * When set: each request waits (20 s at most) until this many have arrived at once, then all are
   * answered ({@link #holdUntilInFlight}).
   */
  private volatile CountDownLatch gate;

  /**
   * Holds every request until {@code n} are in flight at once (or 20 s have passed), so a test sees
   * how many requests a client keeps in flight whatever the machine's speed: a client that keeps
   * fewer waits the 20 s and shows its real count in {@link #maxInFlight}.
   */
  public void holdUntilInFlight(int n) {
    gate = new CountDownLatch(n);
  }

  /** Above this many requests in flight, a request is answered 503 at once (0: never). */
  public volatile int overloadAbove;

  /** Requests answered 503 for overload. */
  public final AtomicInteger overloaded = new AtomicInteger();

  /** The most requests in flight when each request arrived, in arrival order. */
  public final List<Integer> arrivals = Collections.synchronizedList(new ArrayList<>());

  /** The most requests in flight at an arrival in the second half of the arrivals so far. */
  public int peakInFlightOfLaterHalf() {
    List<Integer> all = List.copyOf(arrivals);
    return all.subList(all.size() / 2, all.size()).stream()
        .mapToInt(Integer::intValue)
        .max()
        .orElseThrow();
  }

  /** The path of every request, in arrival order. */
  public final List<String> paths = Collections.synchronizedList(new ArrayList<>());

  /** Each request's raw query ("null" for none), in arrival order. */
  public final List<String> queries = Collections.synchronizedList(new ArrayList<>());

  public TestHttpServer(Path root) throws IOException {
    this(root, null);
  }

  /** Serves {@code root} over https with {@code tls} (see {@link LoopbackTls}), or http if null. */
  public TestHttpServer(Path root, SSLContext tls) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    InetSocketAddress at =
        new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), 0);
    if (tls == null) {
      server = HttpServer.create(at, 200);
    } else {
      HttpsServer https = HttpsServer.create(at, 200);
      https.setHttpsConfigurator(new HttpsConfigurator(tls));
      server = https;
    }
    scheme = tls == null ? "http" : "https";
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  /** {@code http://127.0.0.1:PORT/} (or {@code https://}) + {@code path}. */
  public URI url(String path) {
    return URI.create(endpoint() + "/" + path);
  }

  public String endpoint() {
    return scheme + "://127.0.0.1:" + server.getAddress().getPort();
  }

  public TestHttpServer fault(Fault... next) {
    faults.addAll(List.of(next));
    return this;
  }

  public int pendingFaults() {
    return faults.size();
  }

  private void handle(HttpExchange ex) throws IOException {
    requests.incrementAndGet();
    paths.add(ex.getRequestURI().getPath());
    queries.add(String.valueOf(ex.getRequestURI().getRawQuery()));
    clientPorts.add(ex.getRemoteAddress().getPort());
    int now = inFlight.incrementAndGet();
    maxInFlight.accumulateAndGet(now, Math::max);
    arrivals.add(now);
    try {
      if (overloadAbove > 0 && now > overloadAbove) {
        overloaded.incrementAndGet();
        ex.sendResponseHeaders(503, -1);
        return;
      }
      CountDownLatch g = gate;
      if (g != null) {
        g.countDown();
        var unused = g.await(20, TimeUnit.SECONDS);
      }
      if (latencyMillis > 0) {
        Thread.sleep(latencyMillis);
      }
      serve(ex);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      inFlight.decrementAndGet();
      ex.close();
    }
  }

  private static void redirect(HttpExchange ex, int status, String location) throws IOException {
    ex.getResponseHeaders().set("Location", location);
    ex.sendResponseHeaders(status, -1);
  }

  private void serve(HttpExchange ex) throws IOException, InterruptedException {
    String path =
        URLDecoder.decode(ex.getRequestURI().getRawPath(), StandardCharsets.UTF_8).substring(1);
    String range = ex.getRequestHeaders().getFirst("Range");
    rangeHeaders.add(range == null ? "" : range);
    if (path.startsWith("storage/v1/b/")) {
      listing(ex, path);
      return;
    }
    if (path.startsWith("moved/")) { // a permanent redirect, relative, to the path without it
      redirect(ex, 301, "/" + path.substring("moved/".length()));
      return;
    }
    if (path.startsWith("elsewhere/")) { // a temporary one, absolute, to another connection
      redirect(ex, 307, endpoint() + "/moved/" + path.substring("elsewhere/".length()));
      return;
    }
    if (path.startsWith("loop/")) { // to itself, forever
      redirect(ex, 302, "/" + path);
      return;
    }
    if (path.startsWith("plain/")) { // to plain http (from https: a downgrade)
      redirect(ex, 302, "http://127.0.0.1:1/" + path.substring("plain/".length()));
      return;
    }
    String dir = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    if (ex.getRequestMethod().equals("HEAD")
        && !dir.isEmpty()
        && !dir.contains("/")
        && Files.isDirectory(root.resolve(dir))) {
      ex.sendResponseHeaders(200, -1); // S3's HeadBucket of a bucket that exists
      return;
    }
    Fault fault = faults.poll();
    if (fault == Fault.HANG) {
      Thread.sleep(Long.MAX_VALUE);
    }
    if (fault == Fault.DENIED_XML
        || fault == Fault.WRONG_REGION
        || fault == Fault.ERROR_500_TEXT
        || fault == Fault.ERROR_500_BINARY) {
      byte[] body;
      int status = fault == Fault.DENIED_XML ? 403 : fault == Fault.WRONG_REGION ? 301 : 500;
      if (fault == Fault.WRONG_REGION) {
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        ex.getResponseHeaders().set("x-amz-bucket-region", "us-west-2");
        body =
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>PermanentRedirect</Code>"
                    + "<Message>The bucket you are attempting to access must be addressed using the"
                    + " specified endpoint. Please send all future requests to this endpoint."
                    + "</Message><Endpoint>bucket.s3.us-west-2.amazonaws.com</Endpoint>"
                    + "<Bucket>bucket</Bucket><RequestId>42</RequestId></Error>")
                .getBytes(StandardCharsets.UTF_8);
      } else if (fault == Fault.DENIED_XML) {
        ex.getResponseHeaders().set("Content-Type", "application/xml");
        body =
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error>\n  <Code>SignatureDoesNotMatch</Code>\n"
                    + "  <Message>The request signature we calculated does not match the signature"
                    + " you provided.</Message>\n  <RequestId>42</RequestId>\n</Error>")
                .getBytes(StandardCharsets.UTF_8);
      } else if (fault == Fault.ERROR_500_TEXT) {
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        body = "disk on fire\n\n   try again later\n".getBytes(StandardCharsets.UTF_8);
      } else {
        ex.getResponseHeaders().set("Content-Type", "application/octet-stream");
        body = new byte[] {0, 1, 2, (byte) 0xff, 'x'};
      }
      ex.sendResponseHeaders(status, body.length);
      try (var out = ex.getResponseBody()) {
        out.write(body);
      }
      return;
    }
    if (fault == Fault.ERROR_500 || fault == Fault.ERROR_503 || fault == Fault.TOO_MANY) {
      if (fault == Fault.ERROR_503) {
        ex.getResponseHeaders().set("Retry-After", "0");
      }
      ex.sendResponseHeaders(
          fault == Fault.ERROR_500 ? 500 : fault == Fault.ERROR_503 ? 503 : 429, -1);
      return;
    }
    if (ex.getRequestMethod().equals("GET")
        && "2".equals(query(ex).get("list-type"))
        && !dir.isEmpty()
        && !dir.contains("/")) {
      s3Listing(ex, dir);
      return;
    }
    if (path.startsWith("private/")) {
      ex.sendResponseHeaders(403, -1);
      return;
    }
    Path file = root.resolve(path).normalize();
    if (!file.startsWith(root) || !Files.isRegularFile(file)) {
      ex.sendResponseHeaders(404, -1);
      return;
    }
    byte[] all = Files.readAllBytes(file);
    long size = all.length;
    long first = 0;
    long last = size - 1;
    int status = 200;
    if (range != null && !ignoreRange) {
      Matcher m = RANGE.matcher(range);
      if (!m.matches() || (m.group(1).isEmpty() && m.group(2).isEmpty())) {
        ex.sendResponseHeaders(400, -1);
        return;
      }
      if (m.group(1).isEmpty()) {
        long n = Long.parseLong(m.group(2));
        if (n == 0) {
          unsatisfiable(ex, size);
          return;
        }
        first = Math.max(0, size - n);
      } else {
        first = Long.parseLong(m.group(1));
        if (!m.group(2).isEmpty()) {
          last = Math.min(last, Long.parseLong(m.group(2)));
        }
        if (first >= size) {
          unsatisfiable(ex, size);
          return;
        }
      }
      status = 206;
      long shown = fault == Fault.WRONG_CONTENT_RANGE ? first + 1 : first;
      ex.getResponseHeaders()
          .set("Content-Range", "bytes " + shown + "-" + (shown + last - first) + "/" + size);
    }
    int length = (int) (last - first + 1);
    if (ex.getRequestMethod().equals("HEAD")) {
      ex.getResponseHeaders().set("Content-Length", Long.toString(length));
      ex.sendResponseHeaders(status, -1);
      return;
    }
    if (fault == Fault.HUGE_LENGTH) {
      ex.sendResponseHeaders(status, 1L << 40);
      ex.getResponseBody().write(all, (int) first, Math.min(16, length));
      return; // short of the declared length: the connection drops
    }
    if (fault == Fault.LONG_BODY || fault == Fault.SHORT_BODY) {
      int sent = fault == Fault.LONG_BODY ? length + 1 : length - 1;
      byte[] body = Arrays.copyOfRange(all, (int) first, (int) first + sent);
      ex.sendResponseHeaders(status, sent == 0 ? -1 : sent);
      ex.getResponseBody().write(body);
      return;
    }
    ex.sendResponseHeaders(status, fault == Fault.CHUNKED ? 0 : length == 0 ? -1 : length);
    OutputStream out = ex.getResponseBody();
    if (fault == Fault.HANG_BODY || fault == Fault.TRUNCATE) {
      out.write(all, (int) first, length / 2);
      out.flush();
      if (fault == Fault.HANG_BODY) {
        Thread.sleep(Long.MAX_VALUE);
      }
      // closing the exchange now, short of the declared length, drops the connection
      return;
    }
    out.write(all, (int) first, length);
  }

  private static void unsatisfiable(HttpExchange ex, long size) throws IOException {
    ex.getResponseHeaders().set("Content-Range", "bytes */" + size);
    ex.sendResponseHeaders(416, -1);
  }

  /** The GCS JSON API's object listing, two items a page. */
  private void listing(HttpExchange ex, String path) throws IOException {
    String[] parts = path.split("/", -1);
    if (parts.length != 5 || !parts[4].equals("o")) {
      ex.sendResponseHeaders(404, -1);
      return;
    }
    String bucket = parts[3];
    Map<String, String> query = query(ex);
    int page = Integer.parseInt(query.getOrDefault("pageToken", "0"));
    if (bucket.startsWith("private")) {
      ex.sendResponseHeaders(403, -1);
      return;
    }
    String delimiter = query.get("delimiter");
    List<String> names = entries(bucket, query.getOrDefault("prefix", ""), delimiter);
    int from = page * 2;
    List<String> shown = names.subList(from, Math.min(names.size(), from + 2));
    StringBuilder json = new StringBuilder("{\"kind\":\"storage#objects\",\"items\":[");
    String sep = "";
    for (String n : shown) {
      if (delimiter == null || !n.endsWith(delimiter)) {
        json.append(sep).append("{\"name\":\"").append(n).append("\"}");
        sep = ",";
      }
    }
    json.append("],\"prefixes\":[");
    sep = "";
    for (String n : shown) {
      if (delimiter != null && n.endsWith(delimiter)) {
        json.append(sep).append('"').append(n).append('"');
        sep = ",";
      }
    }
    json.append("]");
    if (from + 2 < names.size()) {
      json.append(",\"nextPageToken\":\"").append(page + 1).append("\"");
    }
    json.append("}");
    byte[] body = json.toString().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(200, body.length);
    ex.getResponseBody().write(body);
  }

  /**
   * S3's {@code ListObjectsV2} ({@code GET /BUCKET?list-type=2&prefix=P}) over {@code root/BUCKET}:
   * two keys a page unless {@code max-keys} asks for fewer (with {@code delimiter}, keys and common
   * prefixes in one order, as S3 pages them), URL-encoded as S3 encodes them ({@code
   * encoding-type=url}: form encoding, a space as {@code +}); the continuation token is the index
   * of the page's first key. {@code private...} buckets answer 403 as S3's {@code AccessDenied}.
   */
  private void s3Listing(HttpExchange ex, String bucket) throws IOException {
    Map<String, String> query = query(ex);
    if (bucket.startsWith("private")) {
      xmlReply(ex, 403, "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
      return;
    }
    if (!Files.isDirectory(root.resolve(bucket))) {
      xmlReply(
          ex,
          404,
          "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message>"
              + "<BucketName>"
              + bucket
              + "</BucketName></Error>");
      return;
    }
    String delimiter = query.get("delimiter");
    List<String> names = entries(bucket, query.getOrDefault("prefix", ""), delimiter);
    int from = Integer.parseInt(query.getOrDefault("continuation-token", "0"));
    int n = Math.min(2, Integer.parseInt(query.getOrDefault("max-keys", "2")));
    boolean encode = "url".equals(query.get("encoding-type"));
    StringBuilder xml =
        new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
            .append("<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">")
            .append("<Name>")
            .append(bucket)
            .append("</Name><MaxKeys>")
            .append(n)
            .append("</MaxKeys>");
    if (encode) {
      xml.append("<EncodingType>url</EncodingType>");
    }
    boolean truncated = from + n < names.size();
    xml.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
    for (int i = from; i < Math.min(names.size(), from + n); i++) {
      String key = names.get(i);
      String shown = encode ? URLEncoder.encode(key, StandardCharsets.UTF_8) : key;
      if (delimiter != null && key.endsWith(delimiter)) {
        xml.append("<CommonPrefixes><Prefix>").append(shown).append("</Prefix></CommonPrefixes>");
      } else {
        xml.append("<Contents><Key>").append(shown).append("</Key><Size>1</Size></Contents>");
      }
    }
    if (truncated) {
      xml.append("<NextContinuationToken>").append(from + n).append("</NextContinuationToken>");
    }
    xmlReply(ex, 200, xml.append("</ListBucketResult>").toString());
  }

  private static void xmlReply(HttpExchange ex, int status, String xml) throws IOException {
    byte[] body = xml.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    ex.sendResponseHeaders(status, body.length);
    ex.getResponseBody().write(body);
  }

  /** A request's query parameters, decoded. */
  private static Map<String, String> query(HttpExchange ex) {
    Map<String, String> out = new HashMap<>();
    String q = ex.getRequestURI().getRawQuery();
    if (q != null) {
      for (String kv : q.split("&", -1)) {
        int eq = kv.indexOf('=');
        String k = eq < 0 ? kv : kv.substring(0, eq);
        out.put(
            URLDecoder.decode(k, StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /**
   * {@link #names}, each with {@code delimiter} after the prefix cut after it (its common prefix,
   * once): a listing by directory, as S3 and GCS list.
   */
  private List<String> entries(String bucket, String prefix, String delimiter) throws IOException {
    List<String> names = names(bucket, prefix);
    if (delimiter == null) {
      return names;
    }
    return names.stream()
        .map(
            k -> {
              int at = k.indexOf(delimiter, prefix.length());
              return at < 0 ? k : k.substring(0, at + delimiter.length());
            })
        .distinct()
        .toList();
  }

  /** The files under {@code root/bucket} whose names there start with {@code prefix}, sorted. */
  private List<String> names(String bucket, String prefix) throws IOException {
    Path dir = root.resolve(bucket);
    try (Stream<Path> walk = Files.isDirectory(dir) ? Files.walk(dir) : Stream.empty()) {
      return walk.filter(Files::isRegularFile)
          .map(f -> dir.relativize(f).toString().replace('\\', '/'))
          .filter(n -> n.startsWith(prefix))
          .sorted()
          .toList();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
