package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.RetryOptions;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * The SDK client of an {@link S3Store}, set up from its {@link S3Options}: credentials (the default
 * chain, else unsigned), region, endpoint and addressing, and the request policy the SDK applies
 * itself, taken from the shared {@link RetryOptions}: per-attempt deadlines, at most {@link
 * RetryOptions#maxAttempts} attempts with exponential backoff and half jitter, the adaptive
 * client-side rate on throttling, and {@link S3Options#maxConnections} connections.
 *
 * @param client the client; the store owns and closes it
 * @param unsigned whether requests go unsigned (no credentials were found, or anonymous was asked)
 */
record S3Connection(S3AsyncClient client, boolean unsigned) {
  /**
   * Builds the client.
   *
   * @param name the store's name, for messages
   * @throws StoreException if the SDK cannot set it up
   */
  static S3Connection open(S3Options options, String name) {
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
    BackoffStrategy backoff =
        BackoffStrategy.exponentialDelayHalfJitter(retry.initialBackoff(), retry.maxBackoff());
    Duration callTimeout =
        retry
            .requestTimeout()
            .plus(retry.maxBackoff())
            .multipliedBy(retry.maxAttempts())
            .plus(retry.connectTimeout());
    var builder =
        S3AsyncClient.builder()
            .region(region)
            .credentialsProvider(credentials)
            .httpClientBuilder(
                NettyNioAsyncHttpClient.builder()
                    .maxConcurrency(options.maxConnections())
                    .connectionTimeout(retry.connectTimeout())
                    .connectionAcquisitionTimeout(callTimeout)
                    .readTimeout(retry.requestTimeout())
                    .writeTimeout(retry.requestTimeout()))
            .overrideConfiguration(
                c ->
                    c.apiCallAttemptTimeout(retry.requestTimeout())
                        .apiCallTimeout(callTimeout)
                        .retryStrategy(
                            AwsRetryStrategy.adaptiveRetryStrategy().toBuilder()
                                .maxAttempts(retry.maxAttempts())
                                .backoffStrategy(backoff)
                                .throttlingBackoffStrategy(backoff)
                                .build()))
            .serviceConfiguration(
                S3Configuration.builder().pathStyleAccessEnabled(options.pathStyle()).build());
    if (options.endpoint() != null) {
      builder.endpointOverride(options.endpoint());
    }
    try {
      return new S3Connection(builder.build(), anon);
    } catch (SdkException e) {
      throw new StoreException(
          "store '" + name + "': cannot set up the S3 client: " + e.getMessage(), e);
    }
  }
}
