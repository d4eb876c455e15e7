/**
 * A hierarchy's metadata as it is read, whatever its format (Zarr v2, v3 and its drafts,
 * consolidated metadata): arrays ({@link dev.zaro.arrow.metadata.ArrayMetadata}) with their data
 * types, chunk grids, chunk key encodings, fill values and codec specifications, and groups. Values
 * only: parsing and validation stay in the unexported {@code internal} package.
 */
package dev.zaro.arrow.metadata;
