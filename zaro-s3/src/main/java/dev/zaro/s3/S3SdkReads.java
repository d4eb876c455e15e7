package dev.zaro.s3;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.error.ZaroException;
import dev.zaro.arrow.exec.Futures;
import dev.zaro.arrow.store.ByteRange;
import dev.zaro.remote.spi.ContentRange;
import dev.zaro.remote.spi.RequestPolicy;
import dev.zaro.remote.spi.StreamRelay;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An {@link S3Store}'s reads through the SDK's client (with {@code client=sdk}, for access points
 * and directory buckets, and where zaro's client cannot address the endpoint): ranged GETs into
 * {@link S3Body}, HEADs for zero-length ranges and whole values, each through the store's request
 * policy ({@link S3Request}), with the reply checked against the range asked for; and what the
 * SDK's failures mean, as the typed error naming the key ({@link #describe}, also for listings).
 */
final class S3SdkReads {
  private final S3Store store;
  private final String bucket;
  private final String name;
  private final S3Options options;
  private final S3Connection connection;
  private final RequestPolicy policy;

  /**
   * @param store the store whose keys these are (it names them in messages)
   * @param name how messages name the store
   */
  S3SdkReads(
      S3Store store,
      String bucket,
      String name,
      S3Options options,
      S3Connection connection,
      RequestPolicy policy) {
    this.store = store;
    this.bucket = bucket;
    this.name = name;
    this.options = options;
    this.connection = connection;
    this.policy = policy;
  }

  /** A GET through the policy; with a {@code relay}, its body streams and it is not hedged. */
  // completion callbacks: each reports its outcome into the future it completes
  @SuppressWarnings("FutureReturnValueIgnored")
  CompletableFuture<Optional<ArrowBuf>> fetch(
      String key, ByteRange range, BufferAllocator allocator, StreamRelay relay) {
    String object;
    try {
      object = store.objectKey(key);
    } catch (ZaroException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (ContentRange.isEmpty(range)) {
      return emptyRange(key, object, range, allocator);
    }
    GetObjectRequest.Builder builder = GetObjectRequest.builder().bucket(bucket).key(object);
    String header = ContentRange.requestHeader(range);
    if (header != null) {
      builder.range(header);
    }
    GetObjectRequest req = builder.build();
    String where = store.where(key) + " in " + name;
    S3Request<Got> request =
        new S3Request<>(
            () -> {
              S3Body body =
                  new S3Body(
                      allocator,
                      where,
                      relay == null ? null : relay::arrived,
                      ContentRange.askedLength(range),
                      options.maxObjectSize());
              CompletableFuture<ArrowBuf> call =
                  relay == null
                      ? connection.client().getObject(req, body)
                      : relay.start(body, () -> connection.client().getObject(req, body));
              return new S3Request.Sent<>(
                  call.thenApply(buf -> new Got(buf, body.response())),
                  () -> {
                    if (!body.abort()) {
                      call.cancel(true);
                    }
                  });
            },
            got -> got.body().close(),
            relay == null);
    CompletableFuture<Optional<ArrowBuf>> result = new CompletableFuture<>();
    request
        .send(policy, where)
        .whenComplete(
            (reply, failure) -> {
              Optional<ArrowBuf> out;
              try {
                out =
                    answer(key, range, reply, failure)
                        .map(got -> checked(key, range, got.body(), got.response(), allocator));
                if (relay != null) {
                  out = relay.finish(out);
                }
              } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return;
              }
              if (!result.complete(out)) {
                out.ifPresent(ArrowBuf::close); // the caller cancelled meanwhile
              }
            });
    result.whenComplete(
        (v, e) -> {
          if (e instanceof CancellationException) {
            request.cancel();
          }
        });
    return result;
  }

  /** A GET's body and the reply's headers. */
  private record Got(ArrowBuf body, GetObjectResponse response) {}

  /**
   * What a request through the policy ended with: empty for an absent key, else the reply's value;
   * S3's other error replies and failures as the typed error naming the key.
   */
  private <T> Optional<T> answer(String key, ByteRange range, S3Reply<T> reply, Throwable failure) {
    if (failure != null) {
      throw error(key, range, Futures.unwrap(failure), 1);
    }
    if (reply.error() != null) {
      if (absent(reply.error())) {
        return Optional.empty();
      }
      throw error(key, range, reply.error(), reply.attempts());
    }
    return Optional.of(reply.value());
  }

  /** A zero-length range: the value's size decides whether it is valid (a HEAD request). */
  CompletableFuture<Optional<ArrowBuf>> emptyRange(
      String key, String object, ByteRange range, BufferAllocator allocator) {
    HeadObjectRequest req = HeadObjectRequest.builder().bucket(bucket).key(object).build();
    String where = store.where(key) + " in " + name;
    return S3Request.of(() -> connection.client().headObject(req))
        .send(policy, where)
        .handle(
            (reply, failure) ->
                answer(key, range, reply, failure)
                    .map(
                        head ->
                            ContentRange.emptyRange(
                                range, head.contentLength(), where, allocator)));
  }

  /**
   * The asked-for bytes of a key, checked against the reply's Content-Range: {@code body} itself,
   * or a slice of it copied into a new buffer when the server ignored the range. Closes {@code
   * body} when it does not return it.
   */
  private ArrowBuf checked(
      String key,
      ByteRange range,
      ArrowBuf body,
      GetObjectResponse response,
      BufferAllocator allocator) {
    try {
      long length = body.writerIndex();
      String contentRange = response == null ? null : response.contentRange();
      if (range instanceof ByteRange.All) {
        return body;
      }
      if (contentRange == null) { // the whole value came back
        long[] ol = ContentRange.resolve(range, length, store.where(key) + " in " + name);
        ArrowBuf slice = allocator.buffer(ol[1]);
        slice.setBytes(0, body, ol[0], ol[1]);
        slice.writerIndex(ol[1]);
        body.close();
        return slice;
      }
      ContentRange.check(range, contentRange, length, store.where(key) + " in " + name);
      return body;
    } catch (RuntimeException e) {
      body.close();
      throw e;
    }
  }

  /** Whether a failed request means the key is absent (the bucket being absent is an error). */
  static boolean absent(Throwable cause) {
    return cause instanceof NoSuchKeyException
        || (cause instanceof S3Exception s
            && s.statusCode() == 404
            && !(cause instanceof NoSuchBucketException));
  }

  /** A failed request as the typed error naming the key (the allocator's own errors pass). */
  private RuntimeException error(String key, ByteRange range, Throwable cause, int attempts) {
    if (cause instanceof ZaroException z) {
      return z;
    }
    if (cause instanceof OutOfMemoryException o) {
      return o;
    }
    if (cause instanceof CancellationException) {
      return new StoreException(
          "request for " + store.where(key) + " in " + name + " was cancelled", cause);
    }
    if (cause instanceof S3Exception s && s.statusCode() == 416) {
      return new StoreException(
          "cannot read "
              + range
              + " of "
              + store.where(key)
              + " in "
              + name
              + ": the range lies past the end of the value",
          cause);
    }
    String detail = describe(cause);
    if (attempts > 1) {
      detail += " (" + attempts + " attempts)";
    }
    return new StoreException(
        "cannot read " + store.where(key) + " in " + name + ": " + detail, cause);
  }

  /** What went wrong, for a message: access, a missing bucket, HTTP status and code, timeouts. */
  String describe(Throwable cause) {
    if (cause instanceof NoSuchBucketException) {
      return store.noSuchBucket();
    }
    if (cause instanceof S3Exception s) {
      if (s.statusCode() == 403 || s.statusCode() == 401) {
        return "access denied (HTTP "
            + s.statusCode()
            + ")"
            + (connection.unsigned()
                ? ": the request was anonymous (no credentials were found); set AWS credentials for private data"
                : ": the credentials may not read it");
      }
      String code = s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
      String advice =
          s.awsErrorDetails() == null || s.awsErrorDetails().sdkHttpResponse() == null
              ? null
              : s.awsErrorDetails()
                  .sdkHttpResponse()
                  .firstMatchingHeader("x-amz-bucket-region")
                  .map(r -> S3Signer.elsewhere(r, connection.region().id()))
                  .orElse(null);
      return "HTTP "
          + s.statusCode()
          + (code == null ? "" : " " + code)
          + (advice == null ? "" : "; " + advice);
    }
    return String.valueOf(cause.getMessage());
  }

  /** {@link S3Store#getBytes(String, long)} through the SDK: read whole, then checked. */
  Optional<byte[]> getBytes(String key, long maxBytes) {
    GetObjectRequest req =
        GetObjectRequest.builder().bucket(bucket).key(store.objectKey(key)).build();
    CompletableFuture<Optional<byte[]>> call =
        S3Request.of(
                () ->
                    connection
                        .client()
                        .getObject(req, AsyncResponseTransformer.toBytes())
                        .thenApply(ResponseBytes::asByteArray))
            .send(policy, store.where(key) + " in " + name)
            .handle((reply, failure) -> answer(key, ByteRange.ALL, reply, failure));
    Optional<byte[]> got = Futures.await(call, key);
    if (got.isPresent() && got.get().length > maxBytes) {
      throw new StoreException(
          "key '"
              + key
              + "' in "
              + name
              + " is "
              + got.get().length
              + " bytes, more than the cap of "
              + maxBytes
              + " bytes on metadata documents (--max-metadata-size)");
    }
    return got;
  }
}
