package dev.zaro.s3;

import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * What one S3 request ended with (see {@link S3Request}): a value, or S3's error reply.
 *
 * @param value the call's value, or null with {@code error}
 * @param error S3's error reply (its status, code and message), or null
 * @param attempts how many attempts were made, when the last still got a retriable status (else 1)
 */
record S3Reply<T>(T value, SdkServiceException error, int attempts) {
  /** 200, or the error reply's status. */
  int status() {
    return error == null ? 200 : error.statusCode();
  }
}
