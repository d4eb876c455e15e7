package dev.zaro.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The remote options every reading command takes ({@code --timeout}, {@code --request-timeout},
 * {@code --retries}, {@code --max-object-size}, {@code --max-metadata-size}): a server that accepts
 * and never answers fails {@code ls}, {@code info} and {@code read} at the deadline with one line
 * naming the host and the key; a metadata document over the cap is a clean error; bad values are
 * usage errors. The class {@link Timeout} only turns a hang into a failure.
 */
@Timeout(120)
class RemoteOptionsCliTest {
  @TempDir Path dir;

  /** A loopback server that accepts connections and never answers. */
  static final class Silent implements AutoCloseable {
    final ServerSocket socket;
    final List<Socket> held = new ArrayList<>();
    final Thread acceptor;

    Silent() throws IOException {
      socket = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
      acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    Socket s = socket.accept();
                    synchronized (held) {
                      held.add(s);
                    }
                  }
                } catch (IOException e) {
                  // closed
                }
              },
              "silent");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String host() {
      return "127.0.0.1:" + socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      socket.close();
      synchronized (held) {
        for (Socket s : held) {
          s.close();
        }
      }
    }
  }

  @Test
  void aSilentServerFailsEveryReadingCommandAtItsDeadline() throws Exception {
    try (Silent server = new Silent()) {
      String store = "http://" + server.host() + "/data";
      for (String[] command :
          List.of(
              new String[] {"ls", store},
              new String[] {"info", store, "/"},
              new String[] {"read", store, "/", "--out", dir.resolve("x.arrow").toString()})) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of("--timeout", "1.5", "--request-timeout", "1", "--retries", "2"));
        CliTest.Result r = CliTest.run(args.toArray(String[]::new));
        assertEquals(1, r.code(), command[0] + ": " + r.err());
        String err = r.err();
        assertTrue(err.contains(server.host()), err);
        assertTrue(err.contains("key 'zarr.json'"), err);
        assertTrue(err.contains("within the 1.5 s timeout"), err);
        assertTrue(err.contains("waited"), err);
        assertEquals("", r.out());
      }
      assertTrue(Files.notExists(dir.resolve("x.arrow")));
    }
  }

  @Test
  void aMetadataDocumentOverTheCapIsACleanError() throws Exception {
    Path store = dir.resolve("big.zarr");
    Files.createDirectories(store);
    String pad = "x".repeat(4096);
    Files.writeString(
        store.resolve("zarr.json"),
        "{\"zarr_format\":3,\"node_type\":\"group\",\"attributes\":{\"pad\":\"" + pad + "\"}}");
    CliTest.Result r = CliTest.run("ls", store.toString(), "--max-metadata-size", "1k");
    assertEquals(1, r.code(), r.err());
    assertTrue(r.err().contains("key 'zarr.json'"), r.err());
    assertTrue(r.err().contains("more than the cap of 1024 bytes"), r.err());
    CliTest.Result ok = CliTest.run("ls", store.toString(), "--max-metadata-size", "8k");
    assertEquals(0, ok.code(), ok.err());
  }

  @Test
  void outOfRangeValuesAreUsageErrorsNamingTheOption() {
    CliTest.Result r = CliTest.run("ls", "http://127.0.0.1:1/x", "--retries", "-1");
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("--retries must be at least 0"), r.err());
    r = CliTest.run("info", "http://127.0.0.1:1/x", "/", "--timeout", "0");
    assertEquals(2, r.code(), r.err());
    assertTrue(
        r.err().contains("--timeout is '0'; expected a positive number of seconds"), r.err());
    r = CliTest.run("read", "x", "/", "--out", "y", "--max-object-size", "lots");
    assertEquals(2, r.code(), r.err());
    assertTrue(r.err().contains("'lots' is not a size"), r.err());
  }
}
