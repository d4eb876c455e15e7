package dev.zaro.flight;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.io.IOException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

/**
 * One GET of an array as an Arrow IPC stream. Batches go out as Netty buffers over the batch's
 * ArrowBufs; the batch is closed (its buffers released to the read's lease) when Netty has written
 * it.
 */
final class HttpSink implements ReadSink {
  private final Channel ch;
  private final boolean keepAlive;
  private final String what;
  private final Object lock = new Object();
  private volatile boolean stopped;
  private volatile boolean started;
  private VectorUnloader unloader;

  private final LongAdder wireBytes;

  /**
   * @param keepAlive whether the connection stays open for the next request once the stream ends
   * @param what what the stream sends, for the log line when its client leaves early
   * @param wireBytes where the body bytes sent are counted
   */
  HttpSink(Channel ch, boolean keepAlive, String what, LongAdder wireBytes) {
    this.ch = ch;
    this.keepAlive = keepAlive;
    this.what = what;
    this.wireBytes = wireBytes;
  }

  @Override
  public String what() {
    return what;
  }

  void wake() {
    synchronized (lock) {
      lock.notifyAll();
    }
  }

  @Override
  public void start(VectorSchemaRoot root, WireCompression compression) {
    unloader = compression.unloader(root, wireBytes);
    HttpResponse r = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    r.headers()
        .set(
            HttpHeaderNames.CONTENT_TYPE,
            compression == WireCompression.NONE
                ? ZaroHttpServer.ARROW_STREAM
                : ZaroHttpServer.ARROW_STREAM + "; codecs=" + compression.option())
        .set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    HttpUtil.setKeepAlive(r, keepAlive);
    started = true;
    ch.write(r).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    ZaroHttpServer.Buffers out = new ZaroHttpServer.Buffers(ch.alloc());
    try {
      MessageSerializer.serialize(new WriteChannel(out), root.getSchema());
    } catch (IOException e) {
      out.release();
      throw new IllegalStateException(e);
    }
    ch.writeAndFlush(new DefaultHttpContent(out.composite))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
  }

  @Override
  public boolean started() {
    return started;
  }

  @Override
  public void putNext() {
    ArrowRecordBatch batch = unloader.getRecordBatch();
    ZaroHttpServer.Buffers out = new ZaroHttpServer.Buffers(ch.alloc());
    try {
      MessageSerializer.serialize(new WriteChannel(out), batch, IpcOption.DEFAULT);
    } catch (IOException | RuntimeException e) {
      out.release();
      batch.close();
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
    }
    ch.writeAndFlush(new DefaultHttpContent(out.composite)).addListener(f -> batch.close());
  }

  @Override
  public void completed() {
    ZaroHttpServer.Buffers out = new ZaroHttpServer.Buffers(ch.alloc());
    try {
      ArrowStreamWriter.writeEndOfStream(new WriteChannel(out), IpcOption.DEFAULT);
    } catch (IOException e) {
      out.release();
      throw new IllegalStateException(e);
    }
    ch.write(new DefaultHttpContent(out.composite))
        .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    ZaroHttpServer.resumeOrClose(ch.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT), keepAlive);
  }

  @Override
  public void error(FlightRuntimeException status) {
    if (started) {
      var unused =
          ch.close(); // mid-stream: no end-of-stream marker, the client sees the stream cut
      return;
    }
    ZaroHttpServer.respond(ch, ZaroHttpServer.errorResponse(status), keepAlive);
  }

  @Override
  public boolean cancelled() {
    return !ch.isActive();
  }

  @Override
  public boolean awaitReady() {
    synchronized (lock) {
      while (!stopped && ch.isActive() && !ch.isWritable()) {
        try {
          lock.wait(100); // woken by writability and close events; the timeout is a safety net
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !stopped && ch.isActive();
  }

  @Override
  public boolean stopped() {
    return stopped;
  }

  @Override
  public void stop() {
    stopped = true;
    wake();
  }
}
