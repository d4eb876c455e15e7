package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;

/**
 * An error reply that names the region its bucket is in (S3's {@code x-amz-bucket-region} header):
 * a request sent to another region's endpoint ({@code 301 PermanentRedirect}) or signed for another
 * region ({@code 400}). {@link S3Signer} makes it from the reply; the S3 store may then read the
 * bucket from there instead.
 */
final class BucketElsewhere extends StoreException {
  private final int status;
  private final String region;

  BucketElsewhere(String message, int status, String region) {
    super(message);
    this.status = status;
    this.region = region;
  }

  /** The reply's HTTP status. */
  int status() {
    return status;
  }

  /** The region the reply names. */
  String region() {
    return region;
  }
}
