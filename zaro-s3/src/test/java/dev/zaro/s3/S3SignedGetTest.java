package dev.zaro.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.zaro.arrow.AllocatorTest;
import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.ArrowBuf;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * GETs through zaro's own HTTP/1.1 client, signed by {@link S3Signer}, against a moto_server that
 * checks signatures (IAM authentication on: {@code INITIAL_NO_AUTH_ACTION_COUNT}): the key's owner
 * reads, and the same key with a wrong secret is refused (moto's {@code SignatureDoesNotMatch}, a
 * 403), an error naming the key; addressed path style and virtual-host style. (Keys here are plain:
 * moto's own check refuses keys with spaces or colons from any client, botocore's too; S3SignerTest
 * holds the encoding of such keys against botocore's signatures.)
 */
class S3SignedGetTest extends AllocatorTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /**
   * An IAM query API call, answered without authentication while moto's count lasts (the
   * Authorization header only names the service, which moto routes by).
   */
  private static String iam(MotoServer moto, String form) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(moto.endpoint().resolve("/"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header(
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/iam/aws4_request,"
                    + " SignedHeaders=host, Signature=0")
            .POST(HttpRequest.BodyPublishers.ofString(form + "&Version=2010-05-08"))
            .build();
    HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.body();
  }

  private static String tag(String xml, String name) {
    Matcher m = Pattern.compile("<" + name + ">([^<]+)</" + name + ">").matcher(xml);
    assertTrue(m.find(), xml);
    return m.group(1);
  }

  /** Runs {@code body} with the default chain finding {@code id} and {@code secret}. */
  private static void as(String id, String secret, ThrowingRunnable body) throws Exception {
    String oldId = System.getProperty("aws.accessKeyId");
    String oldSecret = System.getProperty("aws.secretAccessKey");
    System.setProperty("aws.accessKeyId", id);
    System.setProperty("aws.secretAccessKey", secret);
    try {
      body.run();
    } finally {
      restore("aws.accessKeyId", oldId);
      restore("aws.secretAccessKey", oldSecret);
    }
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  /**
   * Path style ({@code http://127.0.0.1:port/signed/pre/...}) and virtual-host style ({@code
   * http://signed.localhost:port/pre/...}, the name from the module's test hosts file), where the
   * bucket is in the signed {@code Host} header instead of the path.
   */
  @ParameterizedTest(name = "path style: {0}")
  @ValueSource(booleans = {true, false})
  @SuppressWarnings("try") // MotoServer.close() waits for moto_server to exit: interruptible
  void motoChecksTheSignaturesOfZarosGets(boolean pathStyle) throws Exception {
    byte[] value = new byte[100_000];
    new Random(5).nextBytes(value);
    try (MotoServer moto = MotoServer.start(Map.of("INITIAL_NO_AUTH_ACTION_COUNT", "4"))) {
      iam(moto, "Action=CreateUser&UserName=zaro");
      String key = iam(moto, "Action=CreateAccessKey&UserName=zaro");
      String id = tag(key, "AccessKeyId");
      String secret = tag(key, "SecretAccessKey");
      String policy =
          "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Action\":\"*\","
              + "\"Resource\":\"*\"}]}";
      iam(
          moto,
          "Action=PutUserPolicy&UserName=zaro&PolicyName=all&PolicyDocument="
              + URLEncoder.encode(policy, StandardCharsets.UTF_8));
      try (S3Client admin =
          S3Client.builder()
              .endpointOverride(moto.endpoint())
              .region(Region.US_EAST_1)
              .forcePathStyle(true)
              .credentialsProvider(
                  StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret)))
              .build()) {
        admin.createBucket(b -> b.bucket("signed"));
        admin.putObject(b -> b.bucket("signed").key("pre/c/0.1"), RequestBody.fromBytes(value));
      }
      URI endpoint =
          pathStyle ? moto.endpoint() : URI.create("http://localhost:" + moto.endpoint().getPort());
      URI objects =
          pathStyle
              ? moto.endpoint().resolve("/signed/pre/")
              : URI.create("http://signed.localhost:" + moto.endpoint().getPort() + "/pre/");
      S3Options options =
          S3Options.DEFAULT
              .withEndpoint(endpoint, pathStyle)
              .withRegion("us-east-1")
              .withRetries(1, Duration.ofMillis(1), Duration.ofMillis(1));
      as(
          id,
          secret,
          () -> {
            try (S3Store s = new S3Store("signed", "pre", options);
                ArrowBuf buf = s.get("c/0.1", ByteRange.of(1000, 5000), allocator).orElseThrow()) {
              assertTrue(s.zaroGets() && !s.anonymous());
              assertEquals(objects, s.objectsUrl());
              byte[] got = new byte[(int) buf.writerIndex()];
              buf.getBytes(0, got);
              assertArrayEquals(Arrays.copyOfRange(value, 1000, 6000), got);
              // a signed listing (its query signed too), a HEAD and an absent key's HEAD of the
              // bucket, all through zaro's client. The listings are of prefixes without a slash:
              // moto checks a signature against the query as its web server decodes it, so a
              // prefix's slash, sent %2F-encoded as S3 and the SDKs sign it, does not match there
              try (S3Store root = new S3Store("signed", "", options)) {
                assertEquals(List.of("pre/c/0.1"), root.list("").toList());
                assertEquals(List.of("pre/c/0.1"), root.list("pre").toList());
                assertEquals(List.of(), root.list("pro").toList());
                assertTrue(!root.sdkClientBuilt());
              }
              try (ArrowBuf none = s.get("c/0.1", ByteRange.of(10, 0), allocator).orElseThrow()) {
                assertEquals(0, none.writerIndex());
              }
              assertTrue(s.get("c/0.2", ByteRange.ALL, allocator).isEmpty());
              assertTrue(!s.sdkClientBuilt());
            }
          });
      as(
          id,
          "not-" + secret,
          () -> {
            try (S3Store s = new S3Store("signed", "pre", options)) {
              assertEquals(objects, s.objectsUrl());
              StoreException e =
                  assertThrows(
                      StoreException.class, () -> s.get("c/0.1", ByteRange.ALL, allocator));
              assertTrue(
                  e.getMessage().contains("access denied (HTTP 403)")
                      && e.getMessage().contains("key 'c/0.1'")
                      && e.getMessage().contains("the credentials may not read it")
                      // moto's own reason, read from its error reply
                      && e.getMessage().contains("the server says: SignatureDoesNotMatch"),
                  e.getMessage());
              try (S3Store root = new S3Store("signed", "", options)) {
                e = assertThrows(StoreException.class, () -> root.list("pre").toList());
              }
              assertTrue(
                  e.getMessage().startsWith("cannot list 'pre' in s3://signed")
                      && e.getMessage().contains("access denied (HTTP 403)")
                      && e.getMessage().contains("the server says: SignatureDoesNotMatch"),
                  e.getMessage());
            }
          });
    }
    assertEquals(0, allocator.getAllocatedMemory());
  }
}
