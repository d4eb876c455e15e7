package dev.zaro.remote;

import static dev.zaro.arrow.store.LoopbackHttpServer.head;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.LoopbackTls;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Every {@link Http1ClientTest} over TLS (the loopback certificate of testdata/tls, trusted by the
 * client's own context), and what only TLS has: certificates refused, records decrypted into the
 * body.
 */
class Http1ClientTlsTest extends Http1ClientTest {
  /** The TLS under test, trusting what {@code trust} holds (here the JDK's). */
  TlsEngines engines(KeyStore trust) {
    return TlsEngines.jdk(() -> LoopbackTls.context(trust));
  }

  @Override
  Http1Client newClient() {
    return new Http1Client(engines(LoopbackTls.loopbackTrust()));
  }

  @Override
  SSLContext serverTls() {
    return LoopbackTls.server();
  }

  /**
   * TLS that cannot be set up (say {@code -Dzaro.tls=openssl} without Netty's tcnative) fails the
   * https request, naming it and the reason, and not the client: plain http goes on through it.
   */
  @Test
  void tlsThatCannotBeSetUpFailsTheRequestNotTheClient() throws Exception {
    Supplier<TlsEngines> broken =
        () -> {
          throw new StoreException("no TLS here");
        };
    try (Http1Client c = new Http1Client(broken);
        RawServer plain = new RawServer(null)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  c.send("GET", server.url("k"), Map.of(), allocator, "key 'k'")
                      .get(10, TimeUnit.SECONDS));
      StoreException failed = assertInstanceOf(StoreException.class, e.getCause());
      assertTrue(failed.getMessage().contains("key 'k'"), failed.getMessage());
      assertTrue(failed.getMessage().contains("no TLS here"), failed.getMessage());
      plain.reply =
          (path, out) -> {
            out.write(head("200 OK", "Content-Length: 2"));
            out.write(new byte[] {'o', 'k'});
            return true;
          };
      Http1Client.Response r =
          c.send("GET", plain.url("p"), Map.of(), allocator, "key 'p'").get(10, TimeUnit.SECONDS);
      try (ArrowBuf body = r.body()) {
        assertArrayEquals(new byte[] {'o', 'k'}, bytes(body));
      }
    }
  }

  /** A certificate no CA of the JDK's signed is refused by a client that trusts only those. */
  @Test
  void anUntrustedCertificateFailsNamingTheKeyAndHostOnce() throws Exception {
    StoreException refused = refusedBy(LoopbackTls.jdkCas());
    assertTrue(refused.getMessage().contains("TLS handshake"), refused.getMessage());
    assertTrue(refused.getMessage().contains("https://127.0.0.1:"), refused.getMessage());
    assertTrue(refused.getMessage().contains("PKIX"), refused.getMessage()); // the JVM's check
    assertEquals(List.of(), server.paths());
    assertEquals(1, server.connections.get());
  }

  /** A trust store with no certificate at all (a misconfiguration) is an error naming the key. */
  @Test
  void anEmptyTrustStoreIsAnErrorNamingTheKey() throws Exception {
    StoreException refused = refusedBy(LoopbackTls.nothing());
    assertTrue(refused.getMessage().contains("https://127.0.0.1:"), refused.getMessage());
    assertEquals(List.of(), server.paths());
  }

  private StoreException refusedBy(KeyStore trust) throws Exception {
    server.reply = (path, out) -> true;
    try (Http1Client refusing = new Http1Client(engines(trust))) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  refusing
                      .send("GET", server.url("k"), Map.of(), allocator, "key 'k'")
                      .get(10, TimeUnit.SECONDS));
      StoreException refused = assertInstanceOf(StoreException.class, e.getCause());
      assertTrue(refused.getMessage().contains("key 'k'"), refused.getMessage());
      return refused;
    }
  }

  /** The certificate names 127.0.0.1, ::1 and localhost; a server at 127.0.0.2 showing it fails. */
  @Test
  void aCertificateForAnotherHostIsRefused() throws Exception {
    ServerSocket other;
    try {
      other =
          LoopbackTls.server()
              .getServerSocketFactory()
              .createServerSocket(0, 8, InetAddress.getByName("127.0.0.2"));
    } catch (IOException e) {
      Assumptions.assumeTrue(false, "cannot listen on 127.0.0.2: " + e);
      return;
    }
    try (other) {
      Thread acceptor =
          new Thread(
              () -> {
                try (Socket s = other.accept();
                    InputStream in = s.getInputStream()) {
                  ((SSLSocket) s).startHandshake();
                  in.read();
                } catch (IOException expected) {
                  // the client refuses the certificate
                }
              });
      acceptor.setDaemon(true);
      acceptor.start();
      URI url = URI.create("https://127.0.0.2:" + other.getLocalPort() + "/k");
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () ->
                  client
                      .send("GET", url, Map.of(), allocator, "key 'k'", null, Duration.ZERO, null)
                      .get(10, TimeUnit.SECONDS));
      StoreException refused = assertInstanceOf(StoreException.class, e.getCause());
      assertTrue(refused.getMessage().contains("127.0.0.2"), refused.getMessage());
      acceptor.join(10_000);
    }
  }

  /**
   * An 8 MiB body arrives in ~512 records, each decrypted straight into the body except where a
   * record would overrun it; progress covers every byte once, in order.
   */
  @Test
  void aLargeBodyIsDecryptedIntoItsBufferInOrder() throws Exception {
    byte[] big = new byte[8 << 20];
    new Random(11).nextBytes(big);
    server.reply =
        (path, out) -> {
          out.write(head("206 Partial Content", "Content-Length: " + big.length));
          for (int at = 0; at < big.length; at += 100_003) {
            out.write(big, at, Math.min(100_003, big.length - at));
          }
          return true;
        };
    List<long[]> told = new ArrayList<>();
    Http1Client.Response r =
        client
            .send(
                "GET",
                server.url("big"),
                Map.of(),
                allocator,
                "key 'big'",
                (status, body, offset, length) -> told.add(new long[] {offset, length}),
                Duration.ZERO,
                null)
            .get(30, TimeUnit.SECONDS);
    try (ArrowBuf body = r.body()) {
      assertEquals(206, r.status());
      assertArrayEquals(big, bytes(body));
    }
    long next = 0;
    for (long[] t : told) {
      assertEquals(next, t[0]);
      next += t[1];
    }
    assertEquals(big.length, next);
  }
}
