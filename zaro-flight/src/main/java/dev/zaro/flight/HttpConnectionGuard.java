package dev.zaro.flight;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes an HTTP connection whose client holds it without using it, so slow or silent clients cost
 * the server neither threads nor memory (one per connection, on its event loop, after the codec and
 * the flow control that hands requests over one at a time):
 *
 * <ul>
 *   <li>no complete request head within the timeout of the connection opening, or of its previous
 *       reply being written (a client sending its head a byte at a time, garbage without a line
 *       end, a TLS handshake that never ends, an idle keep-alive connection);
 *   <li>a reply none of whose pending bytes leave for the client within the timeout (a client that
 *       sends a request and never reads the reply). A reply that is only slow in coming from the
 *       store has nothing pending and is not cut; a client reading slowly makes progress.
 * </ul>
 *
 * Each close is one rate-limited log line ({@link TransportLogs#connectionClosed}). State is
 * touched on the channel's event loop only.
 */
final class HttpConnectionGuard extends ChannelDuplexHandler {
  private final long timeoutNanos;

  /** Requests handed to the handler whose reply has not yet been written to its end. */
  private int serving;

  private ScheduledFuture<?> headTimer;
  private ScheduledFuture<?> progressCheck;

  // the outbound buffer as the last check saw it, and when it last changed or was empty
  private long pending;
  private long flushed;
  private int current;
  private long progressAt;

  HttpConnectionGuard(Duration timeout) {
    this.timeoutNanos = timeout.toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    if (ctx.channel().isActive()) {
      start(ctx);
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    start(ctx);
    super.channelActive(ctx);
  }

  private void start(ChannelHandlerContext ctx) {
    if (progressCheck != null) {
      return;
    }
    progressAt = System.nanoTime();
    long period = Math.max(TimeUnit.MILLISECONDS.toNanos(10), timeoutNanos / 4);
    progressCheck =
        ctx.executor()
            .scheduleAtFixedRate(() -> checkProgress(ctx), period, period, TimeUnit.NANOSECONDS);
    awaitHead(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (msg instanceof HttpRequest) {
      serving++;
      if (headTimer != null) {
        headTimer.cancel(false);
        headTimer = null;
      }
    }
    super.channelRead(ctx, msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise)
      throws Exception {
    if (msg instanceof LastHttpContent) { // a reply's end (a full response is one too)
      promise = promise.unvoid();
      promise.addListener(f -> replied(ctx));
    }
    super.write(ctx, msg, promise);
  }

  private void replied(ChannelHandlerContext ctx) {
    serving = Math.max(0, serving - 1);
    if (serving == 0 && ctx.channel().isActive()) {
      awaitHead(ctx);
    }
  }

  private void awaitHead(ChannelHandlerContext ctx) {
    if (headTimer != null) {
      headTimer.cancel(false);
    }
    headTimer =
        ctx.executor()
            .schedule(
                () -> {
                  headTimer = null;
                  if (serving == 0 && ctx.channel().isActive()) {
                    close(ctx, "no complete request head within " + seconds() + " s");
                  }
                },
                timeoutNanos,
                TimeUnit.NANOSECONDS);
  }

  private void checkProgress(ChannelHandlerContext ctx) {
    ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
    if (out == null) {
      return; // closing
    }
    long now = System.nanoTime();
    long p = out.totalPendingWriteBytes();
    long f = out.currentProgress();
    int c = System.identityHashCode(out.current());
    if (p == 0 || p != pending || f != flushed || c != current) {
      pending = p;
      flushed = f;
      current = c;
      progressAt = now;
    } else if (now - progressAt >= timeoutNanos) {
      close(
          ctx,
          "the client read none of its reply's " + p + " pending bytes in " + seconds() + " s");
    }
  }

  private void close(ChannelHandlerContext ctx, String why) {
    TransportLogs.connectionClosed(ctx.channel().remoteAddress() + ": " + why);
    var unused = ctx.close();
  }

  private String seconds() {
    return BigDecimal.valueOf(timeoutNanos, 9).stripTrailingZeros().toPlainString();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    stop();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
  }

  private void stop() {
    if (headTimer != null) {
      headTimer.cancel(false);
      headTimer = null;
    }
    if (progressCheck != null) {
      progressCheck.cancel(false);
    }
  }
}
