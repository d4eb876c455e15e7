package dev.zaro.flight;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How a {@link ZaroFlightServer} listens and what it lets requests use.
 *
 * @param host the address to bind
 * @param port the port (0 picks a free one)
 * @param tls certificate and key (and optionally the CA that client certificates must chain to);
 *     null serves plaintext
 * @param tokens the bearer tokens every call must carry; null accepts every call (callers decide
 *     whether that is safe: {@code zaro serve} refuses it off loopback without {@code --insecure})
 * @param maxMemory one Arrow memory budget for all requests together; a request waits until its
 *     reservation fits
 * @param maxStreams do_get streams served at once; further ones wait
 * @param admissionWait how long a request may wait for memory or a stream slot before it fails
 *     RESOURCE_EXHAUSTED
 * @param shutdownGrace how long running streams may take to finish once shutdown begins, before
 *     they are cancelled
 * @param limits per-request limits (endpoint, batch and request bytes)
 * @param clientTimeout the HTTP port's patience with a client (see {@link ZaroHttpServer}): the
 *     most time a connection may take to send a complete request head, counted from when it opened
 *     or its previous reply was written (a slowloris client, an idle keep-alive connection), and
 *     the most time a reply may go without any of its bytes leaving for a client that does not
 *     read; past either the server closes the connection
 */
public record ServerOptions(
    String host,
    int port,
    Tls tls,
    BearerTokens tokens,
    long maxMemory,
    int maxStreams,
    Duration admissionWait,
    Duration shutdownGrace,
    ZaroFlightProducer.FlightOptions limits,
    Duration clientTimeout) {

  /** PEM files: the server's certificate chain and private key, and the client CA or null. */
  public record Tls(Path certChain, Path privateKey, Path clientCa) {}

  public ServerOptions {
    if (maxMemory < 1) {
      throw new IllegalArgumentException("the memory budget must be positive, not " + maxMemory);
    }
    if (maxStreams < 1) {
      throw new IllegalArgumentException("max streams must be at least 1, not " + maxStreams);
    }
    if (clientTimeout == null || clientTimeout.isNegative() || clientTimeout.isZero()) {
      throw new IllegalArgumentException(
          "the client timeout must be positive, not " + clientTimeout);
    }
  }

  /**
   * Loopback, plaintext, no tokens, a 2 GiB budget, 64 streams, 60 s admission wait, 30 s grace, a
   * 30 s client timeout.
   */
  public static ServerOptions defaults() {
    return new ServerOptions(
        "127.0.0.1",
        8815,
        null,
        null,
        2L << 30,
        64,
        Duration.ofSeconds(60),
        Duration.ofSeconds(30),
        ZaroFlightProducer.FlightOptions.DEFAULT,
        Duration.ofSeconds(30));
  }

  public ServerOptions withAddress(String h, int p) {
    return new ServerOptions(
        h,
        p,
        tls,
        tokens,
        maxMemory,
        maxStreams,
        admissionWait,
        shutdownGrace,
        limits,
        clientTimeout);
  }

  public ServerOptions withTls(Tls t) {
    return new ServerOptions(
        host,
        port,
        t,
        tokens,
        maxMemory,
        maxStreams,
        admissionWait,
        shutdownGrace,
        limits,
        clientTimeout);
  }

  public ServerOptions withTokens(BearerTokens t) {
    return new ServerOptions(
        host,
        port,
        tls,
        t,
        maxMemory,
        maxStreams,
        admissionWait,
        shutdownGrace,
        limits,
        clientTimeout);
  }

  public ServerOptions withMaxMemory(long bytes) {
    return new ServerOptions(
        host,
        port,
        tls,
        tokens,
        bytes,
        maxStreams,
        admissionWait,
        shutdownGrace,
        limits,
        clientTimeout);
  }

  public ServerOptions withMaxStreams(int n) {
    return new ServerOptions(
        host, port, tls, tokens, maxMemory, n, admissionWait, shutdownGrace, limits, clientTimeout);
  }

  public ServerOptions withAdmissionWait(Duration d) {
    return new ServerOptions(
        host, port, tls, tokens, maxMemory, maxStreams, d, shutdownGrace, limits, clientTimeout);
  }

  public ServerOptions withShutdownGrace(Duration d) {
    return new ServerOptions(
        host, port, tls, tokens, maxMemory, maxStreams, admissionWait, d, limits, clientTimeout);
  }

  public ServerOptions withLimits(ZaroFlightProducer.FlightOptions l) {
    return new ServerOptions(
        host,
        port,
        tls,
        tokens,
        maxMemory,
        maxStreams,
        admissionWait,
        shutdownGrace,
        l,
        clientTimeout);
  }

  public ServerOptions withClientTimeout(Duration d) {
    return new ServerOptions(
        host, port, tls, tokens, maxMemory, maxStreams, admissionWait, shutdownGrace, limits, d);
  }
}
