package dev.zaro.remote;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A whole reply to {@link HttpStore#fetch} or {@link HttpStore#headAsync}: its status, headers and
 * body (empty for a {@code HEAD}; for an error reply through zaro's client, the start of its text,
 * see {@link Http1Client#ERROR_TEXT_BYTES}), and what the server said in an error reply, for
 * messages (empty or {@code "; the server says: ..."}).
 */
public final class Fetched {
  private final int status;
  private final Map<String, List<String>> headers;
  private final byte[] body;
  private final String serverSays;

  Fetched(int status, Map<String, List<String>> headers, byte[] body, String serverSays) {
    this.status = status;
    this.headers = headers;
    this.body = body;
    this.serverSays = serverSays;
  }

  /** The reply's HTTP status. */
  public int status() {
    return status;
  }

  /** The first value of header {@code name} (any case). */
  public Optional<String> header(String name) {
    for (Map.Entry<String, List<String>> h : headers.entrySet()) {
      if (h.getKey().equalsIgnoreCase(name) && !h.getValue().isEmpty()) {
        return Optional.of(h.getValue().get(0));
      }
    }
    return Optional.empty();
  }

  /** The body's bytes (the caller's: not copied). */
  public byte[] body() {
    return body;
  }

  /** Empty, or {@code "; the server says: ..."} (an error reply's code and message). */
  public String serverSays() {
    return serverSays;
  }

  /** An S3-style error reply's {@code <Code>} ({@code NoSuchBucket}...), if the body has one. */
  public Optional<String> errorCode() {
    return Optional.ofNullable(
        HttpReplyCheck.xmlElement(new String(body, StandardCharsets.UTF_8), "Code"));
  }
}
