package dev.zaro.flight;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flight.CallHeaders;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.auth2.CallHeaderAuthenticator;

/**
 * The tokens a server accepts: every call must carry {@code authorization: Bearer <token>} with one
 * of them, else it fails UNAUTHENTICATED. Only SHA-256 digests of the tokens are kept, and they are
 * compared in constant time ({@link MessageDigest#isEqual} over digests of equal length, against
 * every token without stopping early); neither tokens nor the header a client sent ever appear in a
 * message, log or {@link #toString()}.
 */
public final class BearerTokens implements CallHeaderAuthenticator {
  private static final String PREFIX = "Bearer ";
  private final List<byte[]> digests;

  private BearerTokens(List<byte[]> digests) {
    this.digests = digests;
  }

  /** Tokens from a file, one a line; blank lines and surrounding spaces are ignored. */
  public static BearerTokens fromFile(Path file) throws IOException {
    List<String> tokens = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (!line.isBlank()) {
        tokens.add(line.strip());
      }
    }
    if (tokens.isEmpty()) {
      throw new IllegalArgumentException("the token file " + file + " holds no token (one a line)");
    }
    return of(tokens);
  }

  public static BearerTokens of(List<String> tokens) {
    List<byte[]> digests = new ArrayList<>();
    for (String t : tokens) {
      if (t.isEmpty() || !t.strip().equals(t) || t.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
        throw new IllegalArgumentException(
            "tokens must be printable ASCII without spaces (token "
                + (digests.size() + 1)
                + " is not)");
      }
      digests.add(digest(t.getBytes(StandardCharsets.US_ASCII)));
    }
    return new BearerTokens(List.copyOf(digests));
  }

  private static byte[] digest(byte[] value) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(value);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /** Whether {@code token} is one of the accepted tokens; constant time in its contents. */
  boolean accepts(byte[] token) {
    byte[] d = digest(token);
    boolean found = false;
    for (byte[] expected : digests) {
      found |= MessageDigest.isEqual(expected, d);
    }
    return found;
  }

  @Override
  public AuthResult authenticate(CallHeaders headers) {
    String value = headers.get("authorization");
    if (value == null || !value.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
      throw CallStatus.UNAUTHENTICATED
          .withDescription(
              "this server needs a token: send the header 'authorization: Bearer <token>'")
          .toRuntimeException();
    }
    if (!accepts(value.substring(PREFIX.length()).strip().getBytes(StandardCharsets.UTF_8))) {
      throw CallStatus.UNAUTHENTICATED
          .withDescription("the bearer token is not accepted")
          .toRuntimeException();
    }
    return () -> "token";
  }

  @Override
  public String toString() {
    return "BearerTokens[" + digests.size() + " tokens]";
  }
}
