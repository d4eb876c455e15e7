package dev.zaro.flight;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LingeringClose} against the case it exists for: a server that writes a large reply and
 * closes the connection while bytes its client sent are still unread. A plain close makes the
 * kernel reset the connection and drop what the server had not sent yet; a lingering close delivers
 * every byte, then the end of the stream.
 */
class LingeringCloseTest {
  /**
   * The reply: it fits in the server's send buffer ({@link #SEND_BUFFER}), so its write completes
   * at once, but not in the client's receive buffer ({@link #RECEIVE_BUFFER}), so most of it is
   * still in the server's send queue when the server closes.
   */
  private static final int REPLY = 512 << 10;

  private static final int SEND_BUFFER = 1 << 20;
  private static final int RECEIVE_BUFFER = 64 << 10;

  private EventLoopGroup loops;

  @BeforeEach
  void start() {
    loops = new NioEventLoopGroup(2);
  }

  @AfterEach
  void stop() throws InterruptedException {
    loops.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
  }

  /**
   * A server on {@code type} whose connections never read (auto-read off), and 100 ms after a
   * client connects write {@link #REPLY} bytes, then close if {@code close}; {@code accepted}
   * completes with the server's side of the connection once the reply is written.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the reply's write closes when it completes
  private Channel server(
      ChannelFactory<? extends ServerChannel> type,
      CompletableFuture<Channel> accepted,
      boolean close)
      throws InterruptedException {
    return new ServerBootstrap()
        .group(loops)
        .channelFactory(type)
        .childOption(ChannelOption.AUTO_READ, false)
        .childOption(ChannelOption.SO_SNDBUF, SEND_BUFFER)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                ch.pipeline()
                    .addLast(
                        new ChannelInboundHandlerAdapter() {
                          @Override
                          public void channelActive(ChannelHandlerContext ctx) {
                            ctx.executor()
                                .schedule(
                                    () -> {
                                      var written =
                                          ctx.writeAndFlush(
                                              Unpooled.wrappedBuffer(new byte[REPLY]));
                                      written.addListener(
                                          f -> {
                                            if (close) {
                                              ctx.close();
                                            }
                                            accepted.complete(ctx.channel());
                                          });
                                    },
                                    100,
                                    TimeUnit.MILLISECONDS);
                          }
                        });
              }
            })
        .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .sync()
        .channel();
  }

  /**
   * Connects with a small receive buffer, sends a few bytes the server never reads, waits until the
   * server has written its reply and {@code closing} holds for its side of the connection, then
   * reads until the end of the stream.
   */
  private static long readAll(
      Channel server, CompletableFuture<Channel> accepted, Predicate<Channel> closing)
      throws Exception {
    try (Socket socket = new Socket()) {
      socket.setReceiveBufferSize(RECEIVE_BUFFER);
      socket.connect(server.localAddress());
      socket.getOutputStream().write(new byte[64]);
      socket.getOutputStream().flush();
      Channel connection = accepted.get(10, TimeUnit.SECONDS);
      assertTrue(closing.test(connection));
      return drain(socket.getInputStream());
    }
  }

  /**
   * Waits until the server's socket is closed in the kernel, not only in Netty: the JDK closes the
   * descriptor of a channel registered with a selector when that selector next runs, after {@code
   * closeFuture} has completed. A task scheduled on the channel's event loop runs after at least
   * one more pass through the selector.
   */
  private static boolean socketClosed(Channel connection) {
    return connection.closeFuture().awaitUninterruptibly(10_000)
        && connection
            .eventLoop()
            .schedule(() -> {}, 10, TimeUnit.MILLISECONDS)
            .awaitUninterruptibly(10_000);
  }

  private static long drain(InputStream in) throws IOException {
    byte[] buf = new byte[1 << 16];
    long total = 0;
    for (int n; (n = in.read(buf)) >= 0; ) {
      total += n;
    }
    return total;
  }

  @Test
  void aPlainCloseWithUnreadBytesResetsTheConnectionAndLosesTheReplysEnd() throws Exception {
    CompletableFuture<Channel> accepted = new CompletableFuture<>();
    Channel server = server(NioServerSocketChannel::new, accepted, true);
    try {
      SocketException e =
          assertThrows(
              SocketException.class,
              () -> readAll(server, accepted, LingeringCloseTest::socketClosed));
      assertTrue(e.getMessage().contains("reset"), e.getMessage());
    } finally {
      server.close().sync();
    }
  }

  @Test
  void aLingeringCloseDeliversTheWholeReplyThenTheEnd() throws Exception {
    CompletableFuture<Channel> accepted = new CompletableFuture<>();
    Channel server = server(LingeringClose.ServerChannel.FACTORY, accepted, true);
    try {
      // the server has asked to close (its reply written); it lingers while the client reads
      assertEquals(REPLY, readAll(server, accepted, c -> c.isOpen()));
      // the client closed its side: the server's side closes then, not after the linger time
      assertTrue(accepted.get().closeFuture().await(2, TimeUnit.SECONDS));
    } finally {
      server.close().sync();
    }
  }

  @Test
  void aSecondCloseWhileLingeringClosesAtOnce() throws Exception {
    CompletableFuture<Channel> accepted = new CompletableFuture<>();
    Channel server = server(LingeringClose.ServerChannel.FACTORY, accepted, false);
    try (Socket socket = new Socket()) {
      socket.connect(server.localAddress());
      Channel connection = accepted.get(10, TimeUnit.SECONDS);
      InputStream in = socket.getInputStream();
      byte[] first = new byte[REPLY];
      int got = 0;
      while (got < REPLY) {
        got += in.read(first, got, REPLY - got);
      }
      // the reply is read and the client keeps its side open: the first close lingers
      var lingering = connection.close();
      assertEquals(-1, in.read()); // the server's FIN
      assertTrue(!lingering.isDone());
      assertTrue(connection.isOpen(), "lingering until the client closes");
      assertTrue(connection.close().await(2, TimeUnit.SECONDS)); // forceful: closes now
      assertTrue(!connection.isOpen());
    } finally {
      server.close().sync();
    }
  }
}
