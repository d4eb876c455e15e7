/**
 * The typed errors every failure of the library surfaces as: {@link
 * dev.zaro.arrow.error.ZaroException} and its subclasses (metadata, selection, store, codec, a node
 * not found, a slab too large), each with an {@link dev.zaro.arrow.error.ErrorKind} that callers,
 * the Flight server and the command line map to their own status codes, and a message naming the
 * array, chunk, key or field concerned.
 */
package dev.zaro.arrow.error;
