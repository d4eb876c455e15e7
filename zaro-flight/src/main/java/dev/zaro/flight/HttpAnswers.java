package dev.zaro.flight;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpResponse;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallStatus;

/** Whole HTTP replies made off the event loops (the JSON documents, the explorer's answers). */
final class HttpAnswers {
  private HttpAnswers() {}

  /**
   * Makes a reply on {@code answers} (it may read the store), then sends it from there; a failure
   * is the error reply of its status. The event loop goes on serving other connections meanwhile.
   */
  static void answer(
      ExecutorService answers, Channel ch, Supplier<FullHttpResponse> reply, boolean keepAlive) {
    try {
      answers.execute(
          () -> {
            FullHttpResponse r;
            try {
              r = reply.get();
            } catch (RuntimeException e) {
              r = ZaroHttpServer.errorResponse(FlightErrors.translate(e));
            }
            ZaroHttpServer.respond(ch, r, keepAlive);
          });
    } catch (RejectedExecutionException e) {
      ZaroHttpServer.respond(
          ch,
          ZaroHttpServer.errorResponse(
              CallStatus.UNAVAILABLE
                  .withDescription("the server is shutting down")
                  .toRuntimeException()),
          false);
    }
  }
}
