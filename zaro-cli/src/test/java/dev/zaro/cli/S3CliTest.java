package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.vector.FixedShapeTensorType;
import dev.zaro.arrow.vector.FixedShapeTensorVector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** `zaro read s3://...` against moto_server on loopback, started and stopped here. */
class S3CliTest extends AllocatorTest {
  static Process moto;
  static URI endpoint;
  static final Path STORE = Fixtures.testdata().resolve("sharding/stores/end_zstd.zarr");
  @TempDir Path dir;

  @BeforeAll
  static void startMoto() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    try {
      moto =
          new ProcessBuilder("moto_server", "-H", "127.0.0.1", "-p", Integer.toString(port))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
    } catch (IOException e) {
      Assumptions.abort("moto_server is not installed");
    }
    endpoint = URI.create("http://127.0.0.1:" + port);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        HttpURLConnection c =
            (HttpURLConnection) endpoint.resolve("/moto-api/").toURL().openConnection();
        c.setConnectTimeout(500);
        if (c.getResponseCode() > 0) {
          break;
        }
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !moto.isAlive()) {
          throw new IllegalStateException("moto_server did not start", e);
        }
        Thread.sleep(200);
      }
    }
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
    System.setProperty("aws.region", "us-east-1");
    try (S3Client admin =
            S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(
                    StaticCredentialsProvider.create(
                        AwsBasicCredentials.create("testing", "testing")))
                .build();
        Stream<Path> files = Files.walk(STORE)) {
      admin.createBucket(b -> b.bucket("zaro"));
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        String key = "end_zstd.zarr/" + STORE.relativize(f).toString().replace('\\', '/');
        admin.putObject(b -> b.bucket("zaro").key(key), RequestBody.fromFile(f));
      }
    }
  }

  @AfterAll
  static void stopMoto() throws Exception {
    if (moto != null) {
      moto.destroy();
      moto.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void readsThroughS3EqualTensorstore() throws Exception {
    Path out = dir.resolve("s3.arrow");
    CliTest.Result r =
        CliTest.run(
            "read",
            "s3://zaro/end_zstd.zarr?endpoint=" + endpoint + "&path_style=true",
            "/",
            "--slice",
            "3:27:4, 5:40",
            "--out",
            out.toString());
    assertEquals(0, r.code(), r.err());
    byte[] want =
        Files.readAllBytes(Fixtures.testdata().resolve("sharding/expected/end_zstd.1.bin"));
    FixedShapeTensorType.register();
    try (FileChannel ch = FileChannel.open(out);
        ArrowFileReader reader = new ArrowFileReader(ch, allocator)) {
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      while (reader.loadNextBatch()) {
        var v = (FixedShapeTensorVector) reader.getVectorSchemaRoot().getVector(0);
        IntVector ints = (IntVector) v.getUnderlyingVector().getDataVector();
        byte[] b = new byte[ints.getValueCount() * 4];
        ints.getDataBuffer().getBytes(0, b);
        got.write(b);
      }
      assertArrayEquals(want, got.toByteArray());
    }
  }
}
