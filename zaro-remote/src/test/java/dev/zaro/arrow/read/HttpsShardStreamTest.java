package dev.zaro.arrow.read;

import dev.zaro.arrow.store.LoopbackTls;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Every {@link HttpShardStreamTest} over https: shard bodies in small TLS records, held back, cut
 * off and stalled, decrypted into the body as they arrive (the test JVM trusts testdata/tls's
 * loopback certificate: the module's surefire configuration).
 */
class HttpsShardStreamTest extends HttpShardStreamTest {
  @Override
  PiecesServer serve(Path root) throws IOException {
    return new PiecesServer(root, LoopbackTls.server());
  }
}
