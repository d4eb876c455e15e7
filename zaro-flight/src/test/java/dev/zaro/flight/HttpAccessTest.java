package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.Zaro;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server on loopback answers only requests whose Host names loopback: a page from another site
 * whose name resolves to 127.0.0.1 (DNS rebinding) sends its own name and is refused, token or no
 * token (docs/serving.md, "Arrow IPC over HTTP"). Raw requests over a socket, so the Host header is
 * exactly the one given.
 */
class HttpAccessTest {
  @TempDir Path dir;

  private ZaroFlightServer serve(String host) throws IOException {
    Files.writeString(dir.resolve(".zgroup"), "{\"zarr_format\": 2}");
    return ZaroFlightServer.start(
        Zaro.open(dir.toString()), ServerOptions.defaults().withAddress(host, 0));
  }

  /** The status line and body of one GET with the given Host header (null: none, HTTP/1.0). */
  private static String get(int port, String host) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      OutputStream out = s.getOutputStream();
      String head =
          host == null
              ? "GET /stats HTTP/1.0\r\n\r\n"
              : "GET /stats HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n";
      out.write(head.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String reply = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return reply.lines().findFirst().orElse("")
          + "\n"
          + reply.substring(reply.indexOf("\r\n\r\n") + 4);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1:PORT",
        "127.0.0.1",
        "localhost:PORT",
        "LOCALHOST",
        "[::1]:PORT",
        "127.1.2.3:PORT"
      })
  @SuppressWarnings("try") // the server's close() declares InterruptedException
  void aLoopbackHostIsServed(String host) throws Exception {
    try (ZaroFlightServer server = serve("127.0.0.1")) {
      int port = server.startHttp(0);
      String reply = get(port, host.replace("PORT", String.valueOf(port)));
      assertTrue(reply.startsWith("HTTP/1.1 200"), reply);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"evil.example:PORT", "evil.example", "10.0.0.1:PORT", "localhost.evil.example"})
  @SuppressWarnings("try")
  void anotherHostIsRefusedNamingIt(String host) throws Exception {
    try (ZaroFlightServer server = serve("127.0.0.1")) {
      int port = server.startHttp(0);
      String h = host.replace("PORT", String.valueOf(port));
      String reply = get(port, h);
      assertTrue(reply.startsWith("HTTP/1.1 403"), reply);
      assertTrue(reply.contains("\"error\":\"UNAUTHORIZED\""), reply);
      assertTrue(reply.contains("the Host header '" + h + "'"), reply);
    }
  }

  @Test
  @SuppressWarnings("try")
  void aRequestWithoutHostIsServed() throws Exception {
    try (ZaroFlightServer server = serve("127.0.0.1")) {
      int port = server.startHttp(0);
      String reply = get(port, null);
      assertTrue(reply.startsWith("HTTP/1.1 200"), reply);
    }
  }
}
