package dev.zaro.s3;

/** {@link S3StoreTest} with object GETs through the SDK's client ({@code client=sdk}). */
class S3StoreSdkTest extends S3StoreTest {
  @Override
  boolean sdkGets() {
    return true;
  }
}
