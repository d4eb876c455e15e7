package dev.zaro.s3;

/** {@link S3StoreFaultTest} with object GETs through the SDK's client ({@code client=sdk}). */
class S3StoreSdkFaultTest extends S3StoreFaultTest {
  @Override
  boolean sdkGets() {
    return true;
  }
}
