package dev.zaro.remote;

import dev.zaro.arrow.error.StoreException;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.ReferenceCounted;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * BoringSSL engines for {@link Http1Client} through Netty's tcnative (an optional dependency: this
 * class is loaded only after {@link #loadable()} said yes). Engines are reference counted; {@link
 * #release} frees each one's native state when its connection closes.
 */
final class OpenSslEngines implements TlsEngines {
  private final SslContext context;

  /** Engines trusting what {@code trust} trusts. */
  OpenSslEngines(TrustManagerFactory trust) {
    try {
      context =
          SslContextBuilder.forClient()
              .sslProvider(SslProvider.OPENSSL_REFCNT)
              .trustManager(trust)
              .build();
    } catch (SSLException e) {
      throw new StoreException("cannot set up BoringSSL for https: " + e.getMessage(), e);
    }
  }

  /** Engines trusting what the JVM trusts ({@code javax.net.ssl.trustStore}, else its CAs). */
  static OpenSslEngines trustingTheJvm() {
    try {
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init((KeyStore) null);
      return new OpenSslEngines(trust);
    } catch (NoSuchAlgorithmException | KeyStoreException e) {
      throw new StoreException("cannot load the JVM's trusted certificates for https: " + e, e);
    }
  }

  /**
   * Whether Netty's tcnative is on the class path and its BoringSSL loads here. Looks the classes
   * up by name first, so that a class path without Netty never links this class's Netty references.
   */
  static boolean loadable() {
    try {
      Class.forName("io.netty.handler.ssl.OpenSsl", false, OpenSslEngines.class.getClassLoader());
      Class.forName("io.netty.internal.tcnative.SSL", false, OpenSslEngines.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    try {
      return OpenSsl.isAvailable();
    } catch (LinkageError e) {
      return false;
    }
  }

  @Override
  public SSLEngine engine(String host, int port) {
    SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT, host, port);
    TlsEngines.checkHostName(engine);
    return engine;
  }

  @Override
  public void release(SSLEngine engine) {
    if (engine instanceof ReferenceCounted counted && counted.refCnt() > 0) {
      counted.release();
    }
  }

  @Override
  public String name() {
    return "BoringSSL";
  }
}
