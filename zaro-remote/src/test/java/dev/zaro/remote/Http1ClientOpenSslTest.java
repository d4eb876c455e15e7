package dev.zaro.remote;

import dev.zaro.arrow.store.LoopbackTls;
import java.security.KeyStore;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every {@link Http1ClientTlsTest} with BoringSSL's engines (Netty's tcnative, on the test class
 * path), the TLS the CLI uses: the same replies, refusals and errors as with the JDK's.
 */
class Http1ClientOpenSslTest extends Http1ClientTlsTest {
  @BeforeAll
  static void boringSslLoads() {
    Assumptions.assumeTrue(OpenSslEngines.loadable(), "Netty's tcnative does not load here");
  }

  @Override
  TlsEngines engines(KeyStore trust) {
    return new OpenSslEngines(LoopbackTls.trustManagers(trust));
  }
}
