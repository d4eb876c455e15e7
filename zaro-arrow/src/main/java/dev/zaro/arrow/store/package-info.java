/**
 * Where a hierarchy's bytes come from: the {@link dev.zaro.arrow.store.Store} SPI (keys, ranged and
 * asynchronous reads into Arrow buffers, listings, versions, capabilities), {@link
 * dev.zaro.arrow.store.Stores}, which opens a store from a location string, and {@link
 * dev.zaro.arrow.store.StoreProvider}, through which other modules' stores are found with {@link
 * java.util.ServiceLoader}, beside the stores built in (local files, memory, kerchunk references).
 */
package dev.zaro.arrow.store;
