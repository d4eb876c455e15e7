/**
 * Reading arrays: {@link dev.zaro.arrow.read.ZarrArray} (an open array; reads a selection into a
 * {@link dev.zaro.arrow.read.Slab}, one Arrow buffer the caller closes), the hierarchy's nodes, the
 * options of a read and of the table layout, the decoded-chunk {@link
 * dev.zaro.arrow.read.ChunkCache}, per-read statistics and the policy for missing chunks. How a
 * read runs (chunk tasks, sharding, prefetch) is package-private.
 */
package dev.zaro.arrow.read;
