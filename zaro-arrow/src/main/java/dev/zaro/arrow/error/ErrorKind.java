package dev.zaro.arrow.error;

/**
 * What kind of failure a {@link ZaroException} is, as data: servers map it to their status codes
 * (Flight: NOT_FOUND, INVALID_ARGUMENT, INTERNAL...) and callers branch on it, never on a message's
 * text.
 */
public enum ErrorKind {
  /** No node (group or array) at the requested path. */
  NOT_FOUND,
  /** The request is wrong: a bad selection, a group where an array was asked for, a bad option. */
  INVALID_ARGUMENT,
  /** Valid data that zaro does not read (an unknown codec, data type or extension). */
  UNSUPPORTED,
  /** Stored metadata or chunk bytes are malformed, truncated or fail their checksum. */
  CORRUPT,
  /** A store could not be reached or read (I/O, HTTP, permissions). */
  IO,
  /** A read touched a chunk absent from the store while missing chunks are errors. */
  MISSING_CHUNK,
  /** Anything else: interrupted or failed reads, bugs. */
  INTERNAL
}
