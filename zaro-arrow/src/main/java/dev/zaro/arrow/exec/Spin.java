package dev.zaro.arrow.exec;

import java.util.function.BooleanSupplier;

/**
 * A short spin before a read's thread parks to wait for its helpers (docs/ARCHITECTURE.md,
 * "Threads"). The owner of a run usually finishes its own tasks while a helper is still on its last
 * one, a task's time or less (tens of microseconds for an inner chunk). Parking and being woken
 * costs more than that on a virtual machine, and the read's latency pays for it once per run. With
 * a local pool of {@code threads - 1} workers ({@link ConcurrencyPolicy#poolThreads}), this made a
 * small box read over 32^3 inner chunks about 9% faster; neither change alone did
 * (benchmarks/README.md, "A read's waits").
 */
final class Spin {
  /** Longer than one inner chunk's decode; a wait longer than this parks as before. */
  static final long MAX_NANOS = 50_000;

  /** On one core a spin only delays the thread it waits for. */
  private static final boolean MULTICORE = Runtime.getRuntime().availableProcessors() > 1;

  private Spin() {}

  /**
   * Spins until {@code done} holds or {@link #MAX_NANOS} have passed.
   *
   * @return whether {@code done} held; the caller still waits its usual way when not
   */
  static boolean until(BooleanSupplier done) {
    if (done.getAsBoolean()) {
      return true;
    }
    if (!MULTICORE) {
      return false;
    }
    long end = System.nanoTime() + MAX_NANOS;
    do {
      Thread.onSpinWait();
      if (done.getAsBoolean()) {
        return true;
      }
    } while (System.nanoTime() - end < 0);
    return false;
  }
}
