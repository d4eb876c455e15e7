package dev.zaro.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.zaro.arrow.Fixtures;
import dev.zaro.arrow.Zaro;
import dev.zaro.arrow.read.Slab;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/**
 * zaro-s3's async client on the classpath Spark gives it: zaro-spark leaves zaro-s3's Netty 4.1
 * out, so the SDK's Netty client runs on Spark's Netty 4.2. A path-style S3 endpoint on loopback
 * (GET with Range, 404 for absent keys) serves the sample store; the values read through s3://
 * equal those read from the files.
 */
class S3OnSparkNettyTest {

  @Test
  void readsS3OnSparksNetty() throws Exception {
    Path root = Fixtures.sample();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/bucket/",
        exchange -> {
          String key = exchange.getRequestURI().getPath().substring("/bucket/".length());
          Path file = root.resolve(key).normalize();
          if (!file.startsWith(root) || !Files.isRegularFile(file)) {
            exchange.sendResponseHeaders(404, -1);
            exchange.close();
            return;
          }
          byte[] all = Files.readAllBytes(file);
          byte[] body = all;
          int status = 200;
          String range = exchange.getRequestHeaders().getFirst("Range");
          if (range != null && range.startsWith("bytes=")) {
            String[] ab = range.substring(6).split("-", -1);
            int from =
                ab[0].isEmpty() ? all.length - Integer.parseInt(ab[1]) : Integer.parseInt(ab[0]);
            int to = ab[0].isEmpty() || ab[1].isEmpty() ? all.length - 1 : Integer.parseInt(ab[1]);
            body = Arrays.copyOfRange(all, from, to + 1);
            status = 206;
            exchange
                .getResponseHeaders()
                .add("Content-Range", "bytes " + from + "-" + to + "/" + all.length);
          }
          exchange.getResponseHeaders().add("ETag", "\"" + Arrays.hashCode(all) + "\"");
          exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    try (BufferAllocator allocator = new RootAllocator();
        Zaro local = Zaro.open(root.toString());
        Zaro remote =
            Zaro.open(
                "s3://bucket?endpoint=http://127.0.0.1:"
                    + server.getAddress().getPort()
                    + "&anonymous=true&region=us-east-1");
        Slab want = local.read("t2m", "0:3", allocator);
        Slab got = remote.read("t2m", "0:3", allocator)) {
      assertTrue(want.byteSize() > 0);
      byte[] a = new byte[(int) want.byteSize()];
      byte[] b = new byte[(int) got.byteSize()];
      want.data().getBytes(0, a);
      got.data().getBytes(0, b);
      assertArrayEquals(a, b);
    } finally {
      server.stop(0);
    }
  }
}
