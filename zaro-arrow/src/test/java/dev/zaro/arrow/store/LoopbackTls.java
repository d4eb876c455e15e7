package dev.zaro.arrow.store;

import dev.zaro.arrow.Fixtures;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS contexts for loopback tests, from the self-signed certificate in testdata/tls (made by its
 * make.sh for 127.0.0.1, ::1 and localhost): the server's (key and certificate), and trust stores
 * for clients: that certificate alone, the JDK's CAs, nothing.
 */
public final class LoopbackTls {
  private static final char[] PASSWORD = "zarotest".toCharArray();

  private LoopbackTls() {}

  /** The server's context: the loopback certificate and its key. */
  public static SSLContext server() {
    try {
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(load("loopback-key.p12"), PASSWORD);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load testdata/tls/loopback-key.p12: " + e, e);
    }
  }

  /** testdata/tls/loopback-trust.p12: the loopback certificate as the one trusted entry. */
  public static KeyStore loopbackTrust() {
    return load("loopback-trust.p12");
  }

  /** The JDK's own CA certificates (lib/security/cacerts), which never signed the loopback one. */
  public static KeyStore jdkCas() {
    Path cacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
    try (InputStream in = Files.newInputStream(cacerts)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(in, null);
      return store;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + cacerts + ": " + e, e);
    }
  }

  /** A trust store with no certificate at all. */
  public static KeyStore nothing() {
    try {
      KeyStore empty = KeyStore.getInstance("PKCS12");
      empty.load(null, null);
      return empty;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Trust managers that trust what {@code store} holds. */
  public static TrustManagerFactory trustManagers(KeyStore store) {
    try {
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      return trust;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A client's context that trusts what {@code store} holds. */
  public static SSLContext context(KeyStore store) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trustManagers(store).getTrustManagers(), null);
      return context;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyStore load(String name) {
    Path path = Fixtures.testdata().resolve("tls").resolve(name);
    try (InputStream in = Files.newInputStream(path)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, PASSWORD);
      return store;
    } catch (Exception e) {
      throw new IllegalStateException("cannot load " + path + ": " + e, e);
    }
  }
}
