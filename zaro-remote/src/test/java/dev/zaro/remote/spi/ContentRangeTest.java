package dev.zaro.remote.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.zaro.arrow.error.StoreException;
import dev.zaro.arrow.store.ByteRange;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The one check of a partial reply's Content-Range against the range asked for. */
class ContentRangeTest {
  private static final String WHERE = "key 'a/b' (http://host/data/a/b)";

  private static String fails(ByteRange range, String header, long bodyLength) {
    return assertThrows(
            StoreException.class, () -> ContentRange.check(range, header, bodyLength, WHERE))
        .getMessage();
  }

  @Test
  void parse() {
    assertEquals(Optional.of(new ContentRange(10, 29, 100)), ContentRange.parse("bytes 10-29/100"));
    assertEquals(Optional.of(new ContentRange(0, 0, -1)), ContentRange.parse("  bytes  0-0/*  "));
    assertEquals(20, new ContentRange(10, 29, 100).length());
    assertEquals(Optional.empty(), ContentRange.parse("bytes */100"));
    assertEquals(Optional.empty(), ContentRange.parse("bytes 10-29"));
    assertEquals(Optional.empty(), ContentRange.parse("items 10-29/100"));
    assertEquals(Optional.empty(), ContentRange.parse(""));
  }

  @Test
  void theRangeAskedForPasses() {
    assertEquals(20, ContentRange.check(ByteRange.of(10, 20), "bytes 10-29/100", 20, WHERE));
    assertEquals(20, ContentRange.check(ByteRange.of(10, 20), "bytes 10-29/*", 20, WHERE));
    assertEquals(7, ContentRange.check(ByteRange.suffix(7), "bytes 93-99/100", 7, WHERE));
    assertEquals(7, ContentRange.check(ByteRange.suffix(7), "bytes 93-99/*", 7, WHERE));
    assertEquals(100, ContentRange.check(ByteRange.ALL, "bytes 0-99/100", 100, WHERE));
  }

  @Test
  void aMissingMalformedOrInvalidHeaderIsAnError() {
    assertEquals(
        WHERE + ": a partial reply (HTTP 206) with no Content-Range",
        fails(ByteRange.of(0, 10), null, 10));
    assertEquals(
        WHERE + ": a partial reply (HTTP 206) with a malformed Content-Range 'bytes 0-9'",
        fails(ByteRange.of(0, 10), "bytes 0-9", 10));
    assertEquals(
        WHERE + ": an invalid Content-Range 'bytes 9-0/100'",
        fails(ByteRange.of(0, 10), "bytes 9-0/100", 10));
    assertEquals(
        WHERE + ": an invalid Content-Range 'bytes 0-100/100'",
        fails(ByteRange.of(0, 10), "bytes 0-100/100", 10));
  }

  @Test
  void aRangeEndingPastTheValueSaysHowLongTheValueIs() {
    assertEquals(
        "cannot read bytes 90..110 of " + WHERE + ": the value has only 100 bytes",
        fails(ByteRange.of(90, 20), "bytes 90-99/100", 10));
    assertEquals(
        "cannot read last 200 bytes of " + WHERE + ": the value has only 100 bytes",
        fails(ByteRange.suffix(200), "bytes 0-99/100", 100));
  }

  @Test
  void anotherRangeOrAnotherBodyLengthIsAnErrorNamingBoth() {
    assertEquals(
        WHERE
            + ": asked for bytes 10..30 but the server replied with Content-Range"
            + " 'bytes 11-30/100' and 20 bytes",
        fails(ByteRange.of(10, 20), "bytes 11-30/100", 20));
    // the first byte is checked even when the total is unknown
    fails(ByteRange.of(10, 20), "bytes 11-30/*", 20);
    fails(ByteRange.of(10, 20), "bytes 10-28/100", 19);
    fails(ByteRange.suffix(7), "bytes 92-98/100", 7); // not the end of the value
    fails(ByteRange.suffix(7), "bytes 92-99/100", 8);
    fails(ByteRange.ALL, "bytes 0-49/100", 50);
    fails(ByteRange.ALL, "bytes 0-99/*", 100);
    assertEquals(
        WHERE
            + ": asked for bytes 10..30 but the server replied with Content-Range"
            + " 'bytes 10-29/100' and 21 bytes",
        fails(ByteRange.of(10, 20), "bytes 10-29/100", 21));
    fails(ByteRange.of(10, 20), "bytes 10-29/100", 19);
  }
}
