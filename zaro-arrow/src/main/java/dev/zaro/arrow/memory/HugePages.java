package dev.zaro.arrow.memory;

import com.sun.jna.Function;
import com.sun.jna.Pointer;
import java.util.Locale;

/**
 * Asks Linux to back large fresh buffers with transparent huge pages ({@code madvise(...,
 * MADV_HUGEPAGE)}), as numpy does for its arrays. A read writes every byte of its output once, and
 * with 4 KiB pages the first touch of each page is a page fault: for a 256 MiB output that is
 * 65,536 faults, about 120 ms of kernel time on this project's benchmark machine, half of a whole
 * read. With 2 MiB pages it is 128. Only advice: where it is unavailable (other operating systems,
 * THP set to "never", {@code -Dzaro.hugepages=false}) nothing happens.
 */
public final class HugePages {
  /** Buffers smaller than this are left alone. */
  public static final long MIN_BYTES = 4L << 20;

  private static final long HUGE_PAGE = 2L << 20;
  private static final int MADV_HUGEPAGE = 14;

  private HugePages() {}

  /**
   * {@code madvise}, bound when first asked for: by {@link #available} or by a buffer large enough
   * to advise, so that small buffers never start JNA (about 15 ms in a new JVM).
   */
  private static final class Madvise {
    static final Function FUNCTION = load();
  }

  private static Function load() {
    if (!Boolean.parseBoolean(System.getProperty("zaro.hugepages", "true"))
        || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return null;
    }
    try {
      return Function.getFunction("c", "madvise");
    } catch (Throwable e) { // no JNA native library for this platform: no advice
      return null;
    }
  }

  /** Whether advice is given at all on this machine. */
  public static boolean available() {
    return Madvise.FUNCTION != null;
  }

  /**
   * Advises huge pages for the whole 2 MiB-aligned pages inside {@code [address, address +
   * length)}; call it before the memory is first written. Returns whether the advice was taken.
   */
  public static boolean advise(long address, long length) {
    if (length < MIN_BYTES) {
      return false;
    }
    Function madvise = Madvise.FUNCTION;
    if (madvise == null) {
      return false;
    }
    long start = (address + HUGE_PAGE - 1) & -HUGE_PAGE;
    long end = (address + length) & -HUGE_PAGE;
    if (end <= start) {
      return false;
    }
    try {
      return madvise.invokeInt(new Object[] {new Pointer(start), end - start, MADV_HUGEPAGE}) == 0;
    } catch (Throwable e) {
      return false;
    }
  }
}
