/**
 * zaro: Zarr v2/v3 and kerchunk arrays read straight into Apache Arrow memory.
 *
 * <p>Exports the API only: the entry points ({@code dev.zaro.arrow}), Arrow shapes, errors,
 * metadata, read plans, readers, stores (with {@link dev.zaro.arrow.store.StoreProvider} for other
 * modules' stores, found with {@link java.util.ServiceLoader}) and the codec extension interfaces
 * (built-in codecs and other jars' register through {@link dev.zaro.arrow.codec.CodecProvider}).
 * The scheduler ({@code exec}), memory helpers ({@code memory}), the built-in codec implementations
 * (core, blosc, lz, numcodecs, zfp, ext), Icechunk's internals and the {@code internal} halves of
 * {@code store}, {@code metadata}, {@code codec}, {@code read} and {@code vector} (helpers the
 * layers above share, and the built-in store provider) stay inside.
 *
 * <p>Some of those are exported to zaro's own modules only (qualified exports, see
 * docs/ARCHITECTURE.md, "Modules"): the JSON parser, the node documents of {@code read.internal}
 * and the scheduler's future helpers for the remote stores (zaro-remote, zaro-s3). Those modules
 * run on the class path, where this descriptor does not apply; each checks in its tests (ArchUnit,
 * {@code ModuleBoundary}) that it uses only what this descriptor exports to it.
 */
// JNA ships no module descriptor, only an Automatic-Module-Name; the targets of the qualified
// exports are zaro's own modules, not on this module's path when it is compiled
@SuppressWarnings({"requires-automatic", "module"})
module dev.zaro.arrow {
  requires transitive org.apache.arrow.memory.core;
  requires transitive org.apache.arrow.vector;
  requires transitive com.fasterxml.jackson.databind;
  requires transitive org.apache.arrow.c;
  requires com.github.luben.zstd_jni;
  requires com.sun.jna;
  requires org.apache.commons.compress;
  requires org.tukaani.xz;

  exports dev.zaro.arrow;
  exports dev.zaro.arrow.vector;
  exports dev.zaro.arrow.codec;
  exports dev.zaro.arrow.error;
  exports dev.zaro.arrow.metadata;
  exports dev.zaro.arrow.plan;
  exports dev.zaro.arrow.read;
  exports dev.zaro.arrow.store;
  exports dev.zaro.arrow.json to
      dev.zaro.flight,
      dev.zaro.sql,
      dev.zaro.cli,
      dev.zaro.parquet;
  exports dev.zaro.arrow.read.internal to
      dev.zaro.flight,
      dev.zaro.cli;
  exports dev.zaro.arrow.exec to
      dev.zaro.remote,
      dev.zaro.s3;
  exports dev.zaro.arrow.memory to
      dev.zaro.cli;

  uses dev.zaro.arrow.store.StoreProvider;
  uses dev.zaro.arrow.codec.CodecProvider;

  provides dev.zaro.arrow.store.StoreProvider with
      dev.zaro.arrow.store.internal.BuiltInStores,
      dev.zaro.arrow.store.icechunk.IcechunkStoreProvider;
  provides dev.zaro.arrow.codec.CodecProvider with
      dev.zaro.arrow.codec.core.CoreCodecs,
      dev.zaro.arrow.codec.blosc.BloscCodecs,
      dev.zaro.arrow.codec.numcodecs.Numcodecs,
      dev.zaro.arrow.codec.ext.Extensions;
}
