/**
 * The entry points of the library: {@link dev.zaro.arrow.Zaro} opens a Zarr v2/v3 hierarchy (or a
 * kerchunk or Icechunk store) by location or over a {@link dev.zaro.arrow.store.Store}, lists its
 * nodes and reads its arrays into Apache Arrow memory as slabs, tensors or tables; {@link
 * dev.zaro.arrow.ZaroOptions} (built with {@link dev.zaro.arrow.ZaroOptions#builder()}) sets its
 * threads, codecs, remote concurrency and cache. Start here; the other exported packages hold what
 * these return and take.
 */
package dev.zaro.arrow;
