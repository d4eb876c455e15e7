package dev.zaro.flight;

import dev.zaro.arrow.error.ErrorKind;
import dev.zaro.arrow.error.ZaroException;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;

/**
 * The browser explorer's resources on the HTTP port (docs/explorer.md): the page ({@code GET /} for
 * a request accepting {@code text/html}, and {@code /ui/app.js}, {@code /ui/app.css}), which hold
 * no data and need no token, and the answers the page reads, which need one as every other request:
 * {@code /arrays/{path}/image.png} ({@link SliceImage}), {@code /arrays/{path}/values.json}, {@code
 * values.csv} and {@code values.parquet} ({@link SliceValues}; Parquet written by the given {@link
 * ExplorerParquet}), and {@code /sql} (with {@code serve --sql}).
 */
final class ExplorerRoutes {
  /** The page's files: a fixed list, so no request names a file of its own. */
  private static final Map<String, String> ASSETS =
      Map.of(
          "/", "index.html",
          "/ui/app.js", "app.js",
          "/ui/app.css", "app.css",
          "/ui/colormaps.txt", "colormaps.txt");

  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "txt", "text/plain; charset=utf-8");

  /**
   * What the page may do: its own scripts, styles and answers only (pictures arrive as blobs).
   * Nothing outside the server is loaded, and no other site may frame it.
   */
  static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:;"
          + " connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

  private final ZaroFlightProducer producer;
  private final ExecutorService answers;
  private final ExplorerSql sql;
  private final ExplorerParquet parquet;

  /**
   * @param answers where answers that read the store are made (not the event loops)
   * @param sql the SQL console's engine, or null when the server has none
   * @param parquet the Parquet downloads' writer, or null when the server has none
   */
  ExplorerRoutes(
      ZaroFlightProducer producer,
      ExecutorService answers,
      ExplorerSql sql,
      ExplorerParquet parquet) {
    this.producer = producer;
    this.answers = answers;
    this.sql = sql;
    this.parquet = parquet;
  }

  /** True for the page's own files, which are served without a token (they hold no data). */
  static boolean isPage(HttpRequest request) {
    String path = new QueryStringDecoder(request.uri()).path();
    if (path.equals("/")) {
      String accept = request.headers().get(HttpHeaderNames.ACCEPT);
      return accept != null && accept.toLowerCase(Locale.ROOT).contains("text/html");
    }
    return ASSETS.containsKey(path);
  }

  /**
   * Answers {@code request} if it is the explorer's (true), else leaves it to the caller (false).
   */
  boolean route(Channel ch, HttpRequest request, QueryStringDecoder uri, boolean keepAlive) {
    String path = uri.path();
    if (isPage(request)) {
      ZaroHttpServer.respond(ch, asset(ASSETS.get(path)), keepAlive);
      return true;
    }
    if (path.equals("/sql")) {
      if (sql == null) {
        throw CallStatus.NOT_FOUND
            .withDescription("this server has no SQL engine (serve it with --sql)")
            .toRuntimeException();
      }
      if (uri.parameters().isEmpty()) { // the page asks whether there is a console
        ZaroHttpServer.respond(ch, bytes("application/json", "{\"sql\":true}"), keepAlive);
        return true;
      }
      String q = SliceValues.only(uri.parameters(), "q");
      answer(ch, keepAlive, () -> bytes("application/json", sql.queryJson(q)));
      return true;
    }
    if (path.equals("/sizes.json")) {
      answer(ch, keepAlive, () -> bytes("application/json", StoredSizes.json(producer.zaro())));
      return true;
    }
    if (!path.startsWith("/arrays/")) {
      return false;
    }
    String node = path.substring("/arrays/".length());
    for (String kind : new String[] {"image.png", "values.json", "values.csv", "values.parquet"}) {
      if (node.equals(kind) || node.endsWith("/" + kind)) {
        if (kind.equals("values.parquet") && parquet == null) {
          throw CallStatus.NOT_FOUND
              .withDescription("this server writes no Parquet (zaro serve does)")
              .toRuntimeException();
        }
        String array = node.substring(0, node.length() - kind.length());
        answer(ch, keepAlive, () -> make(kind, array, uri));
        return true;
      }
    }
    return false;
  }

  private FullHttpResponse make(String kind, String array, QueryStringDecoder uri) {
    switch (kind) {
      case "image.png" -> {
        SliceImage.Picture p = SliceImage.draw(producer, array, uri.parameters());
        FullHttpResponse r = bytes("image/png", p.png());
        r.headers()
            .set("X-Zaro-Selection", p.drawn().canonical())
            .set("X-Zaro-Vmin", Double.toString(p.vmin()))
            .set("X-Zaro-Vmax", Double.toString(p.vmax()));
        return r;
      }
      case "values.json" -> {
        return bytes("application/json", SliceValues.json(producer, array, uri.parameters()));
      }
      case "values.parquet" -> {
        return attachment(
            bytes(
                "application/vnd.apache.parquet",
                SliceValues.parquet(producer, array, uri.parameters(), parquet)),
            array,
            ".parquet");
      }
      default -> {
        return attachment(
            bytes("text/csv; charset=utf-8", SliceValues.csv(producer, array, uri.parameters())),
            array,
            ".csv");
      }
    }
  }

  private static FullHttpResponse attachment(FullHttpResponse r, String array, String suffix) {
    r.headers()
        .set(
            HttpHeaderNames.CONTENT_DISPOSITION,
            "attachment; filename=\"" + SliceValues.fileName(array) + suffix + "\"");
    return r;
  }

  /**
   * Closes the SQL console's engine and the Parquet writer, when closeable (the server owns them).
   */
  void close() {
    for (Object o : new Object[] {sql, parquet}) {
      if (o instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception e) {
          throw new IllegalStateException("cannot close the explorer's " + o + ": " + e, e);
        }
      }
    }
  }

  private void answer(Channel ch, boolean keepAlive, Supplier<FullHttpResponse> body) {
    HttpAnswers.answer(answers, ch, body, keepAlive);
  }

  static FullHttpResponse bytes(String type, String body) {
    return bytes(type, body.getBytes(StandardCharsets.UTF_8));
  }

  static FullHttpResponse bytes(String type, byte[] body) {
    FullHttpResponse r =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(body));
    r.headers()
        .set(HttpHeaderNames.CONTENT_TYPE, type)
        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length)
        .set(HttpHeaderNames.CACHE_CONTROL, "no-store")
        .set("X-Content-Type-Options", "nosniff");
    return r;
  }

  private static FullHttpResponse asset(String name) {
    byte[] body;
    try (InputStream in = ExplorerRoutes.class.getResourceAsStream("explorer/" + name)) {
      if (in == null) {
        throw new ZaroException(
            ErrorKind.INTERNAL, "the explorer's " + name + " is missing from zaro-flight's jar");
      }
      body = in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    FullHttpResponse r = bytes(TYPES.get(name.substring(name.lastIndexOf('.') + 1)), body);
    r.headers()
        .set("Content-Security-Policy", CSP)
        .set("Referrer-Policy", "no-referrer")
        .set("X-Frame-Options", "DENY");
    return r;
  }
}
