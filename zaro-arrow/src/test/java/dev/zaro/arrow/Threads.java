package dev.zaro.arrow;

/** Threads of a test scenario (the model-checked ones, {@code *LincheckTest}). */
public final class Threads {
  private Threads() {}

  /** Starts a thread running {@code body}. */
  public static Thread started(Runnable body) {
    Thread t = new Thread(body);
    t.start();
    return t;
  }

  /** Waits for each of {@code threads} to end; an interrupt fails the test. */
  public static void join(Thread... threads) {
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while joining " + t.getName(), e);
      }
    }
  }
}
