package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The headers {@link S3Signer} adds, against Signature Version 4 vectors computed by botocore
 * (sigv4/make_vectors.py beside vectors.txt): the URL as zaro's client sends it (a key's {@code :}
 * and {@code +} left as they are) must be signed as S3 canonicalizes it (every reserved byte
 * percent-encoded).
 */
class S3SignerTest {
  private static final Clock AT =
      Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  /** The vectors' Authorization headers, by URL. */
  private static Map<String, String> vectors() throws IOException {
    try (InputStream in = S3SignerTest.class.getResourceAsStream("/sigv4/vectors.txt")) {
      Map<String, String> out = new HashMap<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n", -1)) {
        if (!line.isBlank()) {
          String[] f = line.split("\t", -1);
          out.put(f[0], f[2]);
        }
      }
      return out;
    }
  }

  @ParameterizedTest
  @CsvSource({
    "http://127.0.0.1:9000/bucket/pre/a%20b/c:d+e, http://127.0.0.1:9000/bucket/pre/a%20b/c%3Ad%2Be,",
    "http://localhost/bkt/zarr.json, http://localhost/bkt/zarr.json, SESSIONTOKEN"
  })
  void signsAsBotocoreDoes(String sent, String vector, String token) throws IOException {
    AwsBasicCredentials basic =
        AwsBasicCredentials.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    StaticCredentialsProvider credentials =
        StaticCredentialsProvider.create(
            token == null
                ? basic
                : AwsSessionCredentials.create(
                    basic.accessKeyId(), basic.secretAccessKey(), token));
    Map<String, String> headers =
        new S3Signer(credentials, "eu-west-1", AT).sign("GET", URI.create(sent));
    Map<String, String> lower = new HashMap<>();
    headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    assertEquals(vectors().get(vector), lower.get("authorization"));
    assertEquals("20260102T030405Z", lower.get("x-amz-date"));
    assertEquals(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        lower.get("x-amz-content-sha256"));
    assertEquals(token, lower.get("x-amz-security-token"));
    assertFalse(lower.containsKey("host"), "the client sets Host from the URL");
  }

  @Test
  void anonymousRequestsGoUnsigned() {
    S3Signer anonymous = new S3Signer(null, "us-east-1", AT);
    assertEquals(Map.of(), anonymous.sign("GET", URI.create("http://h/b/k")));
    assertTrue(anonymous.denied().contains("anonymous"), anonymous.denied());
  }
}
