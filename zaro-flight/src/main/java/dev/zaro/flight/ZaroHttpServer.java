package dev.zaro.flight;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.zaro.arrow.json.Json;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.vector.ipc.message.MessageSerializer;

/**
 * Arrow IPC streams over plain HTTP/1.1 (docs/serving.md, "Arrow IPC over HTTP"), served by the
 * same {@link ZaroFlightProducer} as Flight: the same arrays, planning, memory budget, stream
 * slots, bearer tokens and TLS certificate.
 *
 * <ul>
 *   <li>{@code GET /} the hierarchy as JSON; {@code GET /stats} the stats action's JSON;
 *   <li>{@code GET /arrays/{path}/metadata} one node's metadata;
 *   <li>{@code GET
 *       /arrays/{path}?slice=S&layout=tensor|table&columns=a,b&compression=zstd|lz4&raw=true&timeout=S}
 *       ({@code /arrays/} for a root array): {@code application/vnd.apache.arrow.stream}, chunked.
 *   <li>the browser explorer ({@link ExplorerRoutes}): its page at {@code /} for a request
 *       accepting {@code text/html}, {@code image.png}, {@code values.json}, {@code values.csv},
 *       {@code /sql}.
 * </ul>
 *
 * <p>Record batch bodies go to the socket as Netty buffers wrapping the ArrowBufs' memory (only the
 * small IPC headers are copied); each batch holds its buffers until Netty has written them, and the
 * next batch waits until the channel is writable again, so a slow client holds the stream back
 * instead of making the server buffer. Failures before the first byte are the HTTP status (400,
 * 401, 404, 429, 500, 501, 503) with {@code {"error": KIND, "message": ...}}, KIND being the Flight
 * status the same failure has; a failure mid-stream closes the connection without the stream's end
 * marker, so clients see a truncated stream rather than a short one.
 */
public final class ZaroHttpServer implements AutoCloseable {
  /** The IANA media type of the Arrow IPC stream format. */
  public static final String ARROW_STREAM = "application/vnd.apache.arrow.stream";

  /** Threads making JSON answers. */
  static final int JSON_THREADS = 4;

  /** The longest request line and the most bytes of request header fields (Netty's defaults). */
  static final int MAX_LINE_BYTES = 4096;

  static final int MAX_HEADER_BYTES = 8192;

  /** Below this, bytes a batch writes (IPC headers, padding) are copied rather than wrapped. */
  private static final int WRAP_BYTES = 4096;

  private final ZaroFlightProducer producer;
  private final HttpAccess access;
  private final EventLoopGroup boss =
      new NioEventLoopGroup(1, new DefaultThreadFactory("zaro-http-boss", true));
  private final EventLoopGroup workers =
      new NioEventLoopGroup(2, new DefaultThreadFactory("zaro-http-io", true));

  /**
   * Where the JSON answers are made ({@code /}, {@code /describe}, {@code /arrays/{path}/metadata},
   * {@code /stats}): they may read the store (a describe reads small arrays' values), which must
   * not block the event loops that serve every other connection. A few threads, whatever the number
   * of connections (each waits for its answer before its next request is read).
   */
  private final ExecutorService answers =
      Executors.newFixedThreadPool(JSON_THREADS, new DefaultThreadFactory("zaro-http-json", true));

  private final Channel server;

  /** The browser explorer's page and answers (docs/explorer.md). */
  private final ExplorerRoutes explorer;

  private ZaroHttpServer(
      ZaroFlightProducer producer,
      ServerOptions options,
      int port,
      ExplorerSql sql,
      ExplorerParquet parquet)
      throws IOException {
    this.producer = producer;
    this.explorer = new ExplorerRoutes(producer, answers, sql, parquet);
    this.access = new HttpAccess(options.tokens(), options.host());
    SslContext ssl = options.tls() == null ? null : sslContext(options.tls());
    long batch = options.limits().batchBytes();
    int high = (int) Math.min(Integer.MAX_VALUE / 2, Math.max(1L << 20, 2 * batch));
    ServerBootstrap bootstrap =
        new ServerBootstrap()
            .group(boss, workers)
            .channel(NioServerSocketChannel.class)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(high / 2, high))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ChannelPipeline p = ch.pipeline();
                    if (ssl != null) {
                      p.addLast(ssl.newHandler(ch.alloc()));
                    }
                    p.addLast(new HttpServerCodec(MAX_LINE_BYTES, MAX_HEADER_BYTES, 8192));
                    // requests reach the handler one at a time: the next (pipelined) one waits
                    // here while reading is paused for the current one's reply
                    p.addLast(new FlowControlHandler());
                    p.addLast(new HttpConnectionGuard(options.clientTimeout()));
                    p.addLast(new Handler());
                  }
                });
    try {
      server = bootstrap.bind(options.host(), port).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new IOException("interrupted while binding the HTTP port", e);
    } catch (RuntimeException e) {
      close();
      throw new IOException(
          "cannot serve HTTP on " + options.host() + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /**
   * Serves HTTP on {@code port} (0 picks a free one) of {@code options.host()}, with its TLS and
   * tokens, through {@code producer} (not closed here: close this server first, then the producer).
   */
  static ZaroHttpServer start(ZaroFlightProducer producer, ServerOptions options, int port)
      throws IOException {
    return start(producer, options, port, null, null);
  }

  /**
   * As {@link #start(ZaroFlightProducer, ServerOptions, int)}, with the explorer's SQL console and
   * Parquet writer (each may be null: none).
   */
  static ZaroHttpServer start(
      ZaroFlightProducer producer,
      ServerOptions options,
      int port,
      ExplorerSql sql,
      ExplorerParquet parquet)
      throws IOException {
    return new ZaroHttpServer(producer, options, port, sql, parquet);
  }

  private static SslContext sslContext(ServerOptions.Tls tls) throws IOException {
    SslContextBuilder b =
        SslContextBuilder.forServer(tls.certChain().toFile(), tls.privateKey().toFile());
    if (tls.clientCa() != null) {
      b.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
    }
    return b.build();
  }

  /** The bound port. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  /**
   * Stops listening and closes every connection (a stream still writing fails, its buffers are
   * freed). Call after the producer's streams have finished or been cancelled.
   */
  @Override
  public void close() {
    if (server != null) {
      server.close().awaitUninterruptibly();
    }
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
    answers.shutdownNow();
    try {
      answers.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    explorer.close();
  }

  /** The HTTP status of a Flight status. */
  static HttpResponseStatus httpStatus(FlightStatusCode code) {
    return switch (code) {
      case NOT_FOUND -> HttpResponseStatus.NOT_FOUND;
      case INVALID_ARGUMENT, ALREADY_EXISTS -> HttpResponseStatus.BAD_REQUEST;
      case UNAUTHENTICATED -> HttpResponseStatus.UNAUTHORIZED;
      case UNAUTHORIZED -> HttpResponseStatus.FORBIDDEN;
      case RESOURCE_EXHAUSTED -> HttpResponseStatus.TOO_MANY_REQUESTS;
      case UNAVAILABLE, CANCELLED, TIMED_OUT -> HttpResponseStatus.SERVICE_UNAVAILABLE;
      case UNIMPLEMENTED -> HttpResponseStatus.NOT_IMPLEMENTED;
      default -> HttpResponseStatus.INTERNAL_SERVER_ERROR;
    };
  }

  private static FullHttpResponse json(HttpResponseStatus status, String body) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            status,
            Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
    return r;
  }

  static FullHttpResponse errorResponse(FlightRuntimeException e) {
    ObjectNode body = Json.createObjectNode();
    body.put("error", e.status().code().name());
    body.put("message", e.status().description());
    FullHttpResponse r = json(httpStatus(e.status().code()), body.toString());
    if (e.status().code() == FlightStatusCode.UNAUTHENTICATED) {
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
    }
    return r;
  }

  /** One connection's requests, one at a time (reading pauses while a stream is sent). */
  private final class Handler extends SimpleChannelInboundHandler<HttpObject> {
    private HttpSink sink;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
      if (!(msg instanceof HttpRequest request)) {
        return; // a GET's (empty) body
      }
      boolean keepAlive = HttpUtil.isKeepAlive(request);
      if (!request.decoderResult().isSuccess()) {
        refuse(ctx, request.decoderResult().cause());
        return;
      }
      // nothing more is read until this request's reply is written (see reply)
      ctx.channel().config().setAutoRead(false);
      try {
        access.checkHost(request);
        if (!ExplorerRoutes.isPage(request)) {
          access.authenticate(request); // the page's files hold no data; the rest needs a token
        }
        if (!request.method().equals(HttpMethod.GET)) {
          FullHttpResponse r =
              json(
                  HttpResponseStatus.METHOD_NOT_ALLOWED,
                  "{\"error\":\"INVALID_ARGUMENT\",\"message\":\"only GET is served\"}");
          r.headers().set(HttpHeaderNames.ALLOW, "GET");
          respond(ctx, r, keepAlive);
          return;
        }
        route(ctx, request, keepAlive);
      } catch (RuntimeException e) {
        respond(ctx, errorResponse(FlightErrors.translate(e)), keepAlive);
      }
    }

    /**
     * Answers a request the codec could not read (431 for header fields over {@link
     * #MAX_HEADER_BYTES}, 414 for a request line over {@link #MAX_LINE_BYTES}, else 400) and closes
     * the connection: the codec discards the rest of what the client sends.
     */
    private void refuse(ChannelHandlerContext ctx, Throwable cause) {
      HttpResponseStatus status;
      String message;
      if (cause instanceof TooLongHttpHeaderException) {
        status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
        message = "the request's header fields exceed " + MAX_HEADER_BYTES + " bytes";
      } else if (cause instanceof TooLongHttpLineException) {
        status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
        message = "the request line exceeds " + MAX_LINE_BYTES + " bytes";
      } else {
        status = HttpResponseStatus.BAD_REQUEST;
        message = "malformed HTTP request";
      }
      TransportLogs.connectionClosed(ctx.channel().remoteAddress() + ": " + message);
      ObjectNode body = Json.createObjectNode();
      body.put("error", "INVALID_ARGUMENT");
      body.put("message", message);
      respond(ctx, json(status, body.toString()), false);
    }

    private void route(ChannelHandlerContext ctx, HttpRequest request, boolean keepAlive) {
      QueryStringDecoder uri = new QueryStringDecoder(request.uri());
      String path = uri.path();
      if (explorer.route(ctx.channel(), request, uri, keepAlive)) {
        return;
      } else if (path.equals("/")) {
        answer(ctx, producer.documents()::hierarchyJson, keepAlive);
      } else if (path.equals("/describe") || path.startsWith("/describe/")) {
        String group = path.length() <= "/describe/".length() ? "" : path.substring(10);
        GroupDescription.Request describe = HttpRequestParams.describe(group, uri.parameters());
        answer(ctx, () -> producer.documents().describeJson(describe), keepAlive);
      } else if (path.equals("/stats")) {
        answer(ctx, producer.documents()::statsJson, keepAlive);
      } else if (path.equals("/arrays") || path.startsWith("/arrays/")) {
        String node = path.length() <= "/arrays/".length() ? "" : path.substring(8);
        if (node.equals("metadata") || node.endsWith("/metadata")) {
          String p = node.substring(0, node.length() - "metadata".length());
          answer(ctx, () -> producer.documents().metadataJson(p), keepAlive);
        } else {
          ReadRequest read = HttpRequestParams.read(node, uri.parameters());
          sink =
              new HttpSink(
                  ctx.channel(),
                  keepAlive,
                  "GET " + ZaroFlightProducer.describe(read),
                  producer.wireBytes());
          producer.submit(read, sink);
        }
      } else {
        throw CallStatus.NOT_FOUND
            .withDescription(
                "no such resource '"
                    + path
                    + "' (zaro serves GET /, /stats, /describe/{path}, /arrays/{path} and"
                    + " /arrays/{path}/metadata)")
            .toRuntimeException();
      }
    }

    /**
     * Makes a JSON answer on the answer threads (it may read the store), then sends it from there:
     * the event loop goes on serving other connections meanwhile.
     */
    private void answer(ChannelHandlerContext ctx, Supplier<String> body, boolean keepAlive) {
      HttpAnswers.answer(
          answers, ctx.channel(), () -> json(HttpResponseStatus.OK, body.get()), keepAlive);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (sink != null) {
        sink.wake();
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (sink != null) {
        sink.wake();
      }
      producer.wakeBudget();
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      var unused = ctx.close(); // a reset connection or a TLS handshake failure: nothing to answer
    }
  }

  private static void respond(ChannelHandlerContext ctx, FullHttpResponse r, boolean keepAlive) {
    respond(ctx.channel(), r, keepAlive);
  }

  /**
   * Sends a whole reply; on a kept-alive connection the next request is read once it is written (so
   * a client that never reads its replies has at most one waiting in the server's memory).
   */
  static void respond(Channel ch, FullHttpResponse r, boolean keepAlive) {
    HttpUtil.setKeepAlive(r, keepAlive);
    resumeOrClose(ch.writeAndFlush(r), keepAlive);
  }

  /** Once {@code f}'s reply is written: reads the next request, or closes the connection. */
  static void resumeOrClose(ChannelFuture f, boolean keepAlive) {
    if (keepAlive) {
      f.addListener(
          x -> {
            Channel ch = f.channel();
            if (x.isSuccess()) {
              ch.config().setAutoRead(true);
              ch.read();
            } else {
              var unused = ch.close();
            }
          });
    } else {
      f.addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * A channel collecting what Arrow's {@link MessageSerializer} writes into one direct Netty
   * buffer: large direct buffers (the ArrowBufs' memory) are wrapped, not copied; small writes
   * (headers, padding) are copied into direct buffers, so the whole is direct and Netty's NIO
   * transport writes it as it is (it copies a buffer with any heap part into a new direct one
   * first).
   */
  static final class Buffers implements WritableByteChannel {
    final CompositeByteBuf composite;
    private final ByteBufAllocator alloc;

    /** Collects into a composite of {@code alloc}'s direct buffers (a channel's allocator). */
    Buffers(ByteBufAllocator alloc) {
      this.alloc = alloc;
      composite = alloc.compositeDirectBuffer(Integer.MAX_VALUE);
    }

    @Override
    public int write(ByteBuffer src) {
      int n = src.remaining();
      ByteBuf part;
      if (src.isDirect() && n >= WRAP_BYTES) {
        part = Unpooled.wrappedBuffer(src.slice());
      } else {
        // direct too: one heap part would make the whole composite non-direct, and Netty's NIO
        // transport copies a non-direct buffer into a fresh direct one before writing it
        part = alloc.directBuffer(n);
        part.writeBytes(src.duplicate());
      }
      src.position(src.limit());
      composite.addComponent(true, part);
      return n;
    }

    void release() {
      composite.release();
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
