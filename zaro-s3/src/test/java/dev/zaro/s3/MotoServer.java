package dev.zaro.s3;

import dev.zaro.arrow.Fixtures;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real local S3 endpoint for tests: {@code moto_server} started on loopback at a free port,
 * stopped by {@link #close}. Tests are skipped (not failed) where moto is not installed.
 */
@SuppressWarnings("try") // close() waits for moto_server to exit, so it is interruptible
public final class MotoServer implements AutoCloseable {
  private final Process process;
  private final URI endpoint;
  private final Path log;

  private MotoServer(Process process, URI endpoint, Path log) {
    this.process = process;
    this.endpoint = endpoint;
    this.log = log;
  }

  public URI endpoint() {
    return endpoint;
  }

  /**
   * A client with full rights, to set up buckets; also sets the credentials the default chain finds
   * (moto accepts any), so stores opened by URL sign their requests. The caller closes it.
   */
  public S3Client admin() {
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create("testing", "testing")))
        .build();
  }

  public static MotoServer start() throws Exception {
    return start(Map.of());
  }

  /** {@link #start()} with {@code env} added to moto_server's environment. */
  static MotoServer start(Map<String, String> env) throws Exception {
    return start(env, false);
  }

  /**
   * {@link #start(Map)}, serving https with testdata/tls's loopback certificate if {@code tls} (the
   * test JVM trusts it: the module's surefire configuration).
   */
  static MotoServer start(Map<String, String> env, boolean tls) throws Exception {
    List<String> ssl =
        tls
            ? List.of(
                "--ssl-cert",
                Fixtures.testdata().resolve("tls/loopback.crt").toString(),
                "--ssl-key",
                Fixtures.testdata().resolve("tls/loopback.key").toString())
            : List.of();
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Path log = Files.createTempFile("moto", ".log");
    Process p = null;
    for (List<String> cmd :
        List.of(
            List.of("moto_server", "-H", "127.0.0.1", "-p", Integer.toString(port)),
            List.of(
                "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", Integer.toString(port)))) {
      try {
        List<String> command = new ArrayList<>(cmd);
        command.addAll(ssl);
        ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true);
        b.environment().putAll(env);
        p = b.redirectOutput(log.toFile()).start();
        break;
      } catch (IOException e) {
        // try the next way to start it
      }
    }
    Assumptions.assumeTrue(p != null, "moto_server is not installed (pip install 'moto[server]')");
    URI endpoint = URI.create((tls ? "https" : "http") + "://127.0.0.1:" + port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        String out = Files.readString(log);
        Files.deleteIfExists(log);
        Assumptions.abort(
            "moto_server did not start: " + out.substring(Math.max(0, out.length() - 500)));
      }
      try {
        HttpURLConnection c =
            (HttpURLConnection) endpoint.resolve("/moto-api/").toURL().openConnection();
        c.setConnectTimeout(500);
        c.setReadTimeout(2000);
        if (c.getResponseCode() > 0) {
          c.disconnect();
          return new MotoServer(p, endpoint, log);
        }
      } catch (IOException e) {
        Thread.sleep(200);
      }
    }
    p.destroyForcibly();
    throw new IllegalStateException("moto_server did not answer on " + endpoint + " within 60 s");
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
    Files.deleteIfExists(log);
  }
}
