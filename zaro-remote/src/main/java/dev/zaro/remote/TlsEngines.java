package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * Where {@link Http1Client}'s TLS comes from: client-side {@link SSLEngine}s that check the
 * server's certificate names the host ({@code HTTPS} endpoint identification). Two sources:
 *
 * <ul>
 *   <li>{@link #jdk}: the JDK's own TLS, from an {@link SSLContext};
 *   <li>{@link OpenSslEngines}: BoringSSL through Netty's tcnative, where it is on the class path
 *       (the CLI has it): the handshake's key exchange and signatures and every record's AES-GCM in
 *       native code, where the JDK does them in Java (about 3 ms of CPU per handshake here,
 *       benchmarks/README "https through zaro's HTTP/1.1 client"). Certificates are still checked
 *       by the JVM's trust manager, so both trust the same CAs.
 * </ul>
 *
 * <p>{@link #defaults()} takes BoringSSL when it loads, unless {@code -Dzaro.tls=jdk}.
 */
interface TlsEngines {
  /** The system property that picks the TLS implementation: {@code jdk} or {@code openssl}. */
  String PROPERTY = "zaro.tls";

  /** A client engine for {@code host:port}, checking the certificate names {@code host}. */
  SSLEngine engine(String host, int port);

  /** Frees what {@code engine} holds outside the heap (BoringSSL's state); once per engine. */
  default void release(SSLEngine engine) {}

  /** What the engines are: {@code JDK} or {@code BoringSSL}. */
  String name();

  /** The JDK's TLS from the context {@code contexts} gives, asked at the first engine. */
  static TlsEngines jdk(Supplier<SSLContext> contexts) {
    return new TlsEngines() {
      private SSLContext context; // made at the first engine (the client's I/O thread)

      @Override
      public SSLEngine engine(String host, int port) {
        if (context == null) {
          context = contexts.get();
        }
        SSLEngine engine = context.createSSLEngine(host, port);
        engine.setUseClientMode(true);
        checkHostName(engine);
        return engine;
      }

      @Override
      public String name() {
        return "JDK";
      }
    };
  }

  /**
   * The process's default: BoringSSL trusting what the JVM trusts, if Netty's tcnative is on the
   * class path and loads on this platform and {@code -Dzaro.tls} is not {@code jdk}; else the JDK's
   * default {@link SSLContext}. Made on first use (the I/O thread's first https connection).
   */
  static TlsEngines defaults() {
    String asked = System.getProperty(PROPERTY, "").strip().toLowerCase(Locale.ROOT);
    if (!asked.isEmpty() && !asked.equals("jdk") && !asked.equals("openssl")) {
      throw new StoreException(
          "-D" + PROPERTY + "=" + asked + ": expected jdk or openssl (BoringSSL)");
    }
    if (!asked.equals("jdk") && OpenSslEngines.loadable()) {
      return OpenSslEngines.trustingTheJvm();
    }
    if (asked.equals("openssl")) {
      throw new StoreException(
          "-D" + PROPERTY + "=openssl, but Netty's tcnative (BoringSSL) is not on the class path");
    }
    return jdk(TlsEngines::defaultContext);
  }

  private static SSLContext defaultContext() {
    try {
      return SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new StoreException("this JVM has no default TLS context for https: " + e, e);
    }
  }

  /** Turns on {@code HTTPS} endpoint identification: the certificate must name the host. */
  static void checkHostName(SSLEngine engine) {
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    engine.setSSLParameters(parameters);
  }
}
