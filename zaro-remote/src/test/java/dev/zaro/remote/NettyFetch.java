package dev.zaro.remote;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.TrustManagerFactory;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Not a test: the smallest HTTP/1.1 client on Netty's HTTP codec that does what {@link Http1Client}
 * does on a read, for {@link TransportBenchmark}'s side-by-side (issue 46: keep the hand-written
 * client or replace it). One event loop thread; keep-alive connections to one host, reused most
 * recent first, one request at a time each; a {@code 200}/{@code 206} body copied from Netty's
 * buffers into one {@link ArrowBuf} of its {@code Content-Length}. https through Netty's {@code
 * SslHandler}, BoringSSL where tcnative loads (as zaro's client), trusting what the JVM trusts. No
 * retries, redirects, limits or deadlines: the benchmark's server answers every request.
 */
// Netty's write and close futures: a failed write closes the channel, which fails its request
@SuppressWarnings("FutureReturnValueIgnored")
final class NettyFetch implements AutoCloseable {
  private static final AttributeKey<Pending> PENDING = AttributeKey.valueOf("zaro.pending");

  private final EventLoopGroup group = new NioEventLoopGroup(1);
  private final Bootstrap bootstrap;
  private final String host;
  private final int port;
  private final ArrayDeque<Channel> idle = new ArrayDeque<>(); // the event loop's only

  /** A request waiting for its reply on a channel. */
  private record Pending(BufferAllocator allocator, CompletableFuture<ArrowBuf> future) {}

  /** A client for {@code base}'s host (http or https). */
  NettyFetch(URI base) throws IOException {
    boolean https = "https".equalsIgnoreCase(base.getScheme());
    host = base.getHost();
    port = base.getPort() >= 0 ? base.getPort() : https ? 443 : 80;
    SslContext ssl;
    if (https) {
      TrustManagerFactory trust;
      try {
        trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init((KeyStore) null); // the JVM's: -Djavax.net.ssl.trustStore applies
      } catch (GeneralSecurityException e) {
        throw new IOException(e);
      }
      ssl =
          SslContextBuilder.forClient()
              .sslProvider(OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK)
              .trustManager(trust)
              .build();
    } else {
      ssl = null;
    }
    bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    if (ssl != null) {
                      ch.pipeline().addLast(ssl.newHandler(ch.alloc(), host, port));
                    }
                    ch.pipeline().addLast(new HttpClientCodec(), new Reply());
                  }
                });
  }

  /** GETs {@code url} whole; completes with its body (the caller's to close). */
  CompletableFuture<ArrowBuf> get(URI url, BufferAllocator allocator) {
    CompletableFuture<ArrowBuf> future = new CompletableFuture<>();
    Pending pending = new Pending(allocator, future);
    group
        .next()
        .execute(
            () -> {
              Channel ch;
              while ((ch = idle.pollLast()) != null && !ch.isActive()) {
                // closed by the server while idle
              }
              if (ch != null) {
                send(ch, url, pending);
                return;
              }
              bootstrap
                  .connect(host, port)
                  .addListener(
                      (ChannelFuture connected) -> {
                        if (connected.isSuccess()) {
                          send(connected.channel(), url, pending);
                        } else {
                          future.completeExceptionally(connected.cause());
                        }
                      });
            });
    return future;
  }

  private void send(Channel ch, URI url, Pending pending) {
    ch.attr(PENDING).set(pending);
    String target = url.getRawPath() + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery());
    DefaultFullHttpRequest request =
        new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, target);
    request
        .headers()
        .set(HttpHeaderNames.HOST, url.getRawAuthority())
        .set(HttpHeaderNames.USER_AGENT, "zaro-bench-netty")
        .set(HttpHeaderNames.ACCEPT_ENCODING, HttpHeaderValues.IDENTITY);
    ch.writeAndFlush(request);
  }

  /** A channel's replies, one at a time: the body lands in an ArrowBuf, then the channel idles. */
  private final class Reply extends SimpleChannelInboundHandler<HttpObject> {
    private Pending pending;
    private ArrowBuf body;
    private long received;
    private boolean keepAlive;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
      if (msg instanceof HttpResponse r) {
        pending = ctx.channel().attr(PENDING).getAndSet(null);
        int status = r.status().code();
        long length = HttpUtil.getContentLength(r, -1L);
        if ((status != 200 && status != 206) || length < 0) {
          fail(ctx, new IOException("HTTP " + status + ", Content-Length " + length));
          return;
        }
        body = pending.allocator().buffer(length);
        received = 0;
        keepAlive = HttpUtil.isKeepAlive(r);
      }
      if (msg instanceof HttpContent c && body != null) {
        ByteBuf in = c.content();
        int n = in.readableBytes();
        in.getBytes(in.readerIndex(), body.nioBuffer(received, n));
        received += n;
        if (msg instanceof LastHttpContent) {
          ArrowBuf out = body;
          body = null;
          out.writerIndex(received);
          Pending p = pending;
          pending = null;
          if (keepAlive) {
            idle.addLast(ctx.channel());
          } else {
            ctx.close();
          }
          p.future().complete(out);
        }
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(ctx, cause);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(ctx, new IOException("the server closed the connection"));
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
      if (body != null) {
        body.close();
        body = null;
      }
      Pending p = pending != null ? pending : ctx.channel().attr(PENDING).getAndSet(null);
      pending = null;
      if (p != null) {
        p.future().completeExceptionally(cause);
      }
      ctx.close();
    }
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
