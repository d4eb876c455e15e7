package dev.zaro.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.error.StoreException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Which TLS {@code -Dzaro.tls} picks for https, and what an unknown value says. */
class TlsEnginesTest {
  @AfterEach
  void clear() {
    System.clearProperty(TlsEngines.PROPERTY);
  }

  @Test
  void jdkIsAskedFor() {
    System.setProperty(TlsEngines.PROPERTY, "JDK");
    assertEquals("JDK", TlsEngines.defaults().name());
  }

  @Test
  void boringSslWhereItLoadsUnlessAskedOtherwise() {
    Assumptions.assumeTrue(OpenSslEngines.loadable(), "Netty's tcnative does not load here");
    assertEquals("BoringSSL", TlsEngines.defaults().name());
    System.setProperty(TlsEngines.PROPERTY, "openssl");
    assertEquals("BoringSSL", TlsEngines.defaults().name());
  }

  @Test
  void anUnknownValueIsAnErrorNamingTheProperty() {
    System.setProperty(TlsEngines.PROPERTY, "gnutls");
    StoreException e = assertThrows(StoreException.class, TlsEngines::defaults);
    assertTrue(e.getMessage().contains("-Dzaro.tls=gnutls"), e.getMessage());
    assertTrue(e.getMessage().contains("expected jdk or openssl"), e.getMessage());
  }
}
