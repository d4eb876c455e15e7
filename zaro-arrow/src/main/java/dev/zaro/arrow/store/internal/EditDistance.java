package dev.zaro.arrow.store.internal;

/**
 * The edit distance behind every "did you mean": a node path not in the hierarchy (read's
 * Hierarchy), a local store path that does not exist (NearPaths).
 */
public final class EditDistance {
  private EditDistance() {}

  /** Levenshtein distance. */
  public static int of(String a, String b) {
    int[] row = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      row[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int diagonal = row[0];
      row[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int above = row[j];
        row[j] =
            Math.min(
                Math.min(row[j] + 1, row[j - 1] + 1),
                diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length()];
  }
}
