package dev.zaro.remote.spi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * How an object store's listing API (S3's {@code ListObjectsV2}, GCS's JSON API) lists the keys
 * under a prefix, for {@code Store.list}: page after page of keys, or, for a listing told what to
 * skip ({@code Store.list(prefix, skipBelow)}) that is longer than a page, directory by directory.
 * A hierarchy without consolidated metadata holds every chunk under its arrays, so its listing
 * costs about a request per node instead of one per page of chunks. Used by {@code GcsStore} and
 * zaro-s3's {@code S3Store} (on the class path: not exported).
 */
public final class Listing {
  private Listing() {}

  /**
   * One page of a listing.
   *
   * @param keys the page's object keys (full object names), in the reply's order
   * @param prefixes the subdirectories of a listing by directory (full names, each ending in {@code
   *     /}); empty otherwise
   * @param next the token of the next page, or null on the last
   */
  public record Page(List<String> keys, List<String> prefixes, String next) {}

  /** A store's listing API. */
  @FunctionalInterface
  public interface Pages {
    /**
     * The page of object names under {@code objectPrefix} from {@code token} on (null: the first);
     * {@code byDirectory}: the names directly under it and its subdirectories ({@code
     * delimiter=/}).
     */
    Page page(String objectPrefix, boolean byDirectory, String token);
  }

  /**
   * Every object name under {@code objectPrefix}, as {@code Store.list(prefix, skipBelow)} wants
   * them: a listing that fits a page is that page; a longer one with a {@code skipBelow} walks the
   * directories breadth first, and of a subdirectory {@code skipBelow} names (as a store key: its
   * object name less the first {@code strip} characters and its last slash) lists only the names
   * directly in it. With a null {@code skipBelow}, every page of the flat listing.
   */
  public static List<String> objects(
      Pages pages, String objectPrefix, int strip, Predicate<String> skipBelow) {
    List<String> out = new ArrayList<>();
    Page first = pages.page(objectPrefix, false, null);
    if (first.next() == null || skipBelow == null) {
      drain(pages, objectPrefix, false, first, out, null);
      return out;
    }
    ArrayDeque<String> walk = new ArrayDeque<>();
    walk.add(objectPrefix);
    while (!walk.isEmpty()) {
      List<String> below = new ArrayList<>();
      String dir = walk.poll();
      drain(pages, dir, true, pages.page(dir, true, null), out, below);
      for (String sub : below) {
        String key = sub.substring(Math.min(strip, sub.length()), sub.length() - 1);
        if (key.isEmpty() || !skipBelow.test(key)) {
          walk.add(sub);
        } else { // an array's own names (its metadata), not its chunks'
          drain(pages, sub, true, pages.page(sub, true, null), out, null);
        }
      }
    }
    return out;
  }

  /**
   * The store keys among object names {@code objects} listed under {@code objectPrefix}, sorted:
   * each name less its first {@code strip} characters (the store's own prefix and its slash),
   * leaving out directory markers (a name ending in {@code /}) and names no key can be (a leading
   * slash, a {@code .} or {@code ..} segment).
   */
  public static Stream<String> keys(List<String> objects, String objectPrefix, int strip) {
    return objects.stream()
        .filter(n -> n.length() > strip && n.startsWith(objectPrefix) && !n.endsWith("/"))
        .map(n -> n.substring(strip))
        .filter(
            k ->
                !k.startsWith("/")
                    && Stream.of(k.split("/", -1)).noneMatch(s -> s.equals("..") || s.equals(".")))
        .sorted();
  }

  /** Adds {@code page}'s names and those of the pages after it; their prefixes to {@code below}. */
  private static void drain(
      Pages pages,
      String prefix,
      boolean byDirectory,
      Page page,
      List<String> out,
      List<String> below) {
    while (true) {
      out.addAll(page.keys());
      if (below != null) {
        below.addAll(page.prefixes());
      }
      if (page.next() == null) {
        return;
      }
      page = pages.page(prefix, byDirectory, page.next());
    }
  }
}
