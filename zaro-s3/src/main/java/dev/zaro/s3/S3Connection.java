package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.RetryOptions;
import dev.zaro.arrow.store.remote.RequestPolicy;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * The SDK client of an {@link S3Store}, set up from its {@link S3Options}: credentials (the default
 * chain, else unsigned), region, endpoint and addressing, {@link S3Options#maxConnections}
 * connections, and the {@link RequestPolicy} every request goes through, the one HTTP and GCS use,
 * from the shared {@link RetryOptions}: per-attempt deadlines, at most {@link
 * RetryOptions#maxAttempts} attempts with exponential backoff and jitter, hedging of slow GETs, and
 * the AIMD limit of requests in flight to the endpoint. The SDK itself retries nothing and sets no
 * call deadlines: each SDK call is one attempt of the policy ({@link S3Request}).
 *
 * @param client the client; the store owns and closes it
 * @param unsigned whether requests go unsigned (no credentials were found, or anonymous was asked)
 * @param policy retries, deadlines, hedging and the limit of the endpoint's requests in flight
 * @param credentials the client's credentials (anonymous ones when {@code unsigned})
 * @param region the region the client signs for
 */
record S3Connection(
    S3AsyncClient client,
    boolean unsigned,
    RequestPolicy policy,
    AwsCredentialsProvider credentials,
    Region region) {
  /**
   * Builds the client.
   *
   * @param bucket the bucket, which names the host of the limit on AWS
   * @param name the store's name, for messages
   * @throws StoreException if the SDK cannot set it up
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
    var builder =
        S3AsyncClient.builder()
            .region(region)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .maxConcurrency(options.maxConnections())
                    .connectionTimeout(retry.connectTimeout())
                    .connectionAcquisitionTimeout(
                        retry.requestTimeout().plus(retry.connectTimeout()))
                    // a backstop only: the policy's per-attempt deadline comes first
                    .readTimeout(retry.requestTimeout().multipliedBy(2))
                    .writeTimeout(retry.requestTimeout().multipliedBy(2)))
            .overrideConfiguration(c -> c.retryStrategy(AwsRetryStrategy.doNotRetry()))
            .serviceConfiguration(
                S3Configuration.builder().pathStyleAccessEnabled(options.pathStyle()).build());
    if (options.endpoint() != null) {
      builder.endpointOverride(options.endpoint());
    }
    String host =
        options.endpoint() != null
            ? options.endpoint().getRawAuthority()
            : bucket + ".s3." + region.id() + ".amazonaws.com";
    RequestPolicy policy =
        new RequestPolicy(
            retry.requestTimeout(),
            retry.maxAttempts(),
            retry.initialBackoff(),
            retry.maxBackoff(),
            options.hedging(),
            host,
            options.maxConnections());
    try {
      return new S3Connection(builder.build(), anon, policy, credentials, region);
    } catch (SdkException e) {
      throw new StoreException(
          "store '" + name + "': cannot set up the S3 client: " + e.getMessage(), e);
    }
  }
}
