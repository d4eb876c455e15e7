package dev.zaro.flight;

/**
 * The explorer's SQL console ({@code GET /sql?q=SQL}), given by whoever serves a SQL engine ({@code
 * zaro serve --sql}); zaro-flight has none of its own. The HTTP server owns it: one that is {@link
 * AutoCloseable} is closed with the server.
 */
@FunctionalInterface
public interface ExplorerSql {
  /**
   * Runs {@code sql} and answers {@code {"columns": [{"name", "type"}], "rows": [[...]],
   * "truncated": bool, "seconds": s, "stats": {...}}}; a failure throws a {@link
   * dev.zaro.arrow.error.ZaroException} with the engine's message.
   */
  String queryJson(String sql);
}
