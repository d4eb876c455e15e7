package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.remote.RetryOptions;
import dev.zaro.remote.spi.RequestPolicy;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.SdkEventLoopGroup;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.S3Utilities;

/**
 * What an {@link S3Store} talks to S3 with, set up from its {@link S3Options}: credentials (the
 * default chain, else unsigned), region, endpoint and addressing, the SDK's endpoint rules ({@link
 * #utilities(Region)}), the SDK's client ({@link #client}) with {@link S3Options#maxConnections}
 * connections, and the {@link RequestPolicy} every request goes through, the one HTTP and GCS use,
 * from the shared {@link RetryOptions}: per-attempt deadlines, at most {@link
 * RetryOptions#maxAttempts} attempts with exponential backoff and jitter, hedging of slow GETs, and
 * the AIMD limit of requests in flight to the endpoint. The SDK itself retries nothing and sets no
 * call deadlines: each SDK call is one attempt of the policy ({@link S3Request}).
 *
 * <p>The SDK's client is built at its first use, not here: object GETs, {@code HEAD}s, a bucket's
 * existence and listing go through zaro's own client where they can, so only {@code client=sdk},
 * access points and directory buckets need it. Building it loads and starts the SDK's whole request
 * pipeline, about 0.4 s of a cold command. Its Netty event loops are ours, shut down without a
 * quiet period at {@link #close}: left to the SDK, every store's close waited Netty's default 2 s
 * quiet period, at the end of every {@code s3://} command.
 */
final class S3Connection implements AutoCloseable {
  private final S3Options options;
  private final String name;
  private final boolean unsigned;
  private final RequestPolicy policy;
  private final AwsCredentialsProvider credentials;
  private final Region region;
  private final S3Utilities utilities;
  private S3AsyncClient client; // built at the first use; guarded by this
  private EventLoopGroup loops; // the client's; guarded by this
  private boolean closed; // guarded by this

  private S3Connection(
      S3Options options,
      String name,
      boolean unsigned,
      RequestPolicy policy,
      AwsCredentialsProvider credentials,
      Region region,
      S3Utilities utilities) {
    this.options = options;
    this.name = name;
    this.unsigned = unsigned;
    this.policy = policy;
    this.credentials = credentials;
    this.region = region;
    this.utilities = utilities;
  }

  /**
   * Resolves credentials and region and sets up the endpoint rules; the client comes later.
   *
   * @param bucket the bucket, which names the host of the limit on AWS
   * @param name the store's name, for messages
   * @throws StoreException if the SDK refuses the configuration (a malformed region or endpoint)
   */
  static S3Connection open(S3Options options, String bucket, String name) {
    AwsCredentialsProvider credentials;
    boolean anon = options.anonymous();
    if (!anon) {
      DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build();
      try {
        chain.resolveCredentials();
        credentials = chain;
      } catch (SdkClientException e) {
        anon = true; // nothing in the chain: public data still reads
        credentials = AnonymousCredentialsProvider.create();
      }
    } else {
      credentials = AnonymousCredentialsProvider.create();
    }
    Region region;
    if (options.region() != null) {
      region = Region.of(options.region());
    } else {
      try {
        region = DefaultAwsRegionProviderChain.builder().build().getRegion();
      } catch (SdkClientException e) {
        region = Region.US_EAST_1;
      }
    }
    RetryOptions retry = options.retry();
    String host =
        options.endpoint() != null
            ? options.endpoint().getRawAuthority()
            : bucket + ".s3." + region.id() + ".amazonaws.com";
    RequestPolicy policy =
        new RequestPolicy(
            retry.requestTimeout(),
            retry.timeout(),
            retry.maxAttempts(),
            retry.initialBackoff(),
            retry.maxBackoff(),
            options.hedging(),
            host,
            options.maxConnections());
    try {
      return new S3Connection(
          options, name, anon, policy, credentials, region, utilities(options, region));
    } catch (SdkException | IllegalArgumentException e) {
      throw new StoreException(
          "store '" + name + "': cannot set up the S3 client: " + e.getMessage(), e);
    }
  }

  /** The SDK's endpoint rules for {@code options} in {@code region}. */
  private static S3Utilities utilities(S3Options options, Region region) {
    S3Utilities.Builder b =
        S3Utilities.builder().region(region).s3Configuration(configuration(options));
    if (options.endpoint() != null) {
      b.endpoint(options.endpoint());
    }
    return b.build();
  }

  private static S3Configuration configuration(S3Options options) {
    return S3Configuration.builder().pathStyleAccessEnabled(options.pathStyle()).build();
  }

  /** Whether requests go unsigned (no credentials were found, or anonymous was asked). */
  boolean unsigned() {
    return unsigned;
  }

  /** Retries, deadlines, hedging and the limit of the endpoint's requests in flight. */
  RequestPolicy policy() {
    return policy;
  }

  /** The client's credentials (anonymous ones when {@link #unsigned}). */
  AwsCredentialsProvider credentials() {
    return credentials;
  }

  /** The region requests are signed for. */
  Region region() {
    return region;
  }

  /**
   * The SDK's endpoint rules for this configuration in {@code other} (the connection's own region,
   * or one a bucket turned out to be in): the URLs its client sends requests to ({@code getUrl}),
   * without building the client.
   */
  S3Utilities utilities(Region other) {
    return other.equals(region) ? utilities : utilities(options, other);
  }

  /**
   * The SDK's client, built at the first call.
   *
   * @throws StoreException if the SDK cannot set it up, or the store is closed
   */
  synchronized S3AsyncClient client() {
    if (closed) {
      throw new StoreException("store '" + name + "' is closed");
    }
    if (client != null) {
      return client;
    }
    RetryOptions retry = options.retry();
    EventLoopGroup group = new NioEventLoopGroup(0, new DefaultThreadFactory("zaro-s3-sdk", true));
    var builder =
        S3AsyncClient.builder()
            .region(region)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .eventLoopGroup(SdkEventLoopGroup.create(group))
                    .maxConcurrency(options.maxConnections())
                    .connectionTimeout(retry.connectTimeout())
                    .connectionAcquisitionTimeout(
                        retry.requestTimeout().plus(retry.connectTimeout()))
                    // a backstop only: the policy's per-attempt deadline comes first
                    .readTimeout(retry.requestTimeout().multipliedBy(2))
                    .writeTimeout(retry.requestTimeout().multipliedBy(2)))
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
            // a bucket in another region: the SDK asks there (its listings, HEADs and GETs)
            .crossRegionAccessEnabled(true)
            .serviceConfiguration(configuration(options));
    if (options.endpoint() != null) {
      builder.endpointOverride(options.endpoint());
    }
    try {
      client = builder.build();
    } catch (SdkException e) {
      group.shutdownGracefully(0, 0, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
      throw new StoreException(
          "store '" + name + "': cannot set up the S3 client: " + e.getMessage(), e);
    }
    loops = group;
    return client;
  }

  /** Whether the SDK's client has been built (for tests). */
  synchronized boolean clientBuilt() {
    return client != null;
  }

  /**
   * Closes the client if it was built, then shuts its event loops down without a quiet period:
   * nothing runs on them once the client is closed.
   */
  @Override
  public void close() {
    S3AsyncClient c;
    EventLoopGroup g;
    synchronized (this) {
      closed = true;
      c = client;
      g = loops;
    }
    try {
      if (c != null) {
        c.close();
      }
    } finally {
      if (g != null) {
        g.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
      }
    }
  }
}
