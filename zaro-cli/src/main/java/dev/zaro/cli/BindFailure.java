package dev.zaro.cli;

import java.io.IOException;
import java.net.BindException;
import java.util.Locale;
import java.util.Optional;

/**
 * A port {@code zaro serve} could not listen on: a mistake the user corrects on the command line,
 * reported in one line (no Java class names) with the usage exit code, 2.
 */
final class BindFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private BindFailure(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The failure to report for {@code e}, raised while binding {@code host}:{@code port} of the
   * option {@code flag}; empty when {@code e} is not a failure to bind.
   */
  static Optional<BindFailure> of(IOException e, String host, int port, String flag) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String m = String.valueOf(t.getMessage());
      boolean inUse = m.toLowerCase(Locale.ROOT).contains("address already in use");
      if (inUse) {
        return Optional.of(
            new BindFailure(
                "port "
                    + port
                    + " ("
                    + flag
                    + ") is already in use on "
                    + host
                    + ": stop the program that holds it, or give "
                    + flag
                    + " another port ("
                    + flag
                    + " 0 picks a free one)",
                e));
      }
      if (t instanceof BindException) {
        return Optional.of(
            new BindFailure(
                "cannot listen on "
                    + host
                    + " port "
                    + port
                    + " (--host, "
                    + flag
                    + "): "
                    + m
                    + "; give --host an address of this machine",
                e));
      }
    }
    return Optional.empty();
  }
}
