package dev.zaro.arrow.read.internal;

import dev.zaro.arrow.exec.Budget;
import dev.zaro.arrow.metadata.ArrayMetadata;
import dev.zaro.arrow.read.ZarrArray;
import dev.zaro.arrow.store.Store;

/**
 * What the layers above {@code read} (the Arrow building in {@code vector}, the entry point {@code
 * Zaro}) need of {@link ZarrArray} that is not its API: making one, and its threads. Java has no
 * access between a package and the packages that use it short of {@code public}, so {@code read}
 * hands this implementation over once, when {@link ZarrArray} is initialized; this package is not
 * exported, so callers outside the module never see it. ArchitectureTest counts {@code
 * read.internal} as part of {@code read}.
 */
public abstract class ReadAccess {
  private static volatile ReadAccess instance;

  /** Called once, by {@link ZarrArray}'s static initializer. */
  protected ReadAccess() {}

  /** Installs {@code read}'s implementation; a second call fails. */
  public static synchronized void install(ReadAccess access) {
    if (instance != null) {
      throw new IllegalStateException("ReadAccess is already installed");
    }
    instance = access;
  }

  /** {@code read}'s implementation, initializing {@link ZarrArray} first if it was not yet. */
  public static ReadAccess get() {
    ReadAccess access = instance;
    if (access == null) {
      try {
        Class.forName(ZarrArray.class.getName(), true, ZarrArray.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(e);
      }
      access = instance;
    }
    return access;
  }

  /** An array ready to read, with what every array of its {@code Zaro} shares. */
  public abstract ZarrArray open(Store store, String path, ArrayMetadata metadata, ReadSetup setup);

  /**
   * A budget of {@code array}'s read threads (its executor and parallelism), for work beside a
   * read's chunks, such as the table layout's dimension columns.
   */
  public abstract Budget budget(ZarrArray array);
}
