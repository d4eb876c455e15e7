package dev.zaro.s3;

/** {@link S3ShardStreamTest} with object GETs through the SDK's client ({@code client=sdk}). */
class S3ShardStreamSdkTest extends S3ShardStreamTest {
  @Override
  boolean sdkGets() {
    return true;
  }
}
