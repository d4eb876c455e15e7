// Zarr v3 arrays written by zarrita (npm; the JavaScript Zarr implementation), one per codec chain
// it can encode: bytes (little and big endian), blosc, zstd, lz4, transpose (its gzip, zlib and
// crc32c codecs only decode),
// with edge chunks and unwritten chunks (fill value). zarrita 0.7 reads sharding but does not write
// it. The values come from a deterministic formula; the script also writes them as raw
// little-endian files (expected/<name>.bin) from the same typed arrays it hands to zarrita.
//
// Run outside the repository (node resolves zarrita beside the script):
//   mkdir /tmp/z && cd /tmp/z && npm install zarrita && cp REPO/testdata/writers/zarrita/generate_zarrita.mjs .
//   && node generate_zarrita.mjs REPO/testdata/writers/zarrita
import * as fs from "node:fs";
import * as path from "node:path";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";

const out = process.argv[2];
fs.rmSync(path.join(out, "stores"), { recursive: true, force: true });
fs.rmSync(path.join(out, "expected"), { recursive: true, force: true });
fs.mkdirSync(path.join(out, "expected"), { recursive: true });
const version = JSON.parse(
  fs.readFileSync(path.join(process.cwd(), "node_modules", "zarrita", "package.json"), "utf8"),
).version;

const SHAPE = [7, 9];
const CHUNKS = [3, 4];
const BYTES = { name: "bytes", configuration: { endian: "little" } };
const ARRAYS = [
  ["int16_bytes", "int16", [BYTES], -7],
  ["float32_big", "float32", [{ name: "bytes", configuration: { endian: "big" } }], Number.NaN],
  ["float64_bytes", "float64", [BYTES], -1.5],
  ["uint32_bytes", "uint32", [BYTES], 4000000000],
  ["int32_blosc", "int32", [BYTES, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle", typesize: 4, blocksize: 0 } }], 0],
  ["int64_zstd", "int64", [BYTES, { name: "zstd", configuration: { level: 3, checksum: false } }], -3],
  ["uint8_lz4", "uint8", [BYTES, { name: "lz4", configuration: { acceleration: 1 } }], 255],
  ["float32_transpose", "float32", [{ name: "transpose", configuration: { order: [1, 0] } }, BYTES], 0.25],
];
const CTORS = {
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, uint32: Uint32Array,
  float32: Float32Array, float64: Float64Array,
};

const root = await zarr.create(new FileSystemStore(path.join(out, "stores", "zarrita.zarr")), { attributes: { written_by: `zarrita ${version}` } });
const cases = [];
for (const [name, dtype, codecs, fill] of ARRAYS) {
  const arr = await zarr.create(root.resolve(name), {
    shape: SHAPE, chunkShape: CHUNKS, dtype, codecs, fillValue: fill, dimensionNames: ["y", "x"],
  });
  // rows 0..5 written (row 6, in the last chunk row, stays unwritten: the fill value)
  const n = SHAPE[0] * SHAPE[1];
  const full = new CTORS[dtype](n);
  for (let i = 0; i < n; i++) {
    const row = Math.floor(i / SHAPE[1]);
    const v = (i * 7919) % 251 - (dtype.startsWith("uint") ? 0 : 125);
    if (dtype === "int64") {
      full[i] = row >= 6 ? BigInt(fill) : BigInt(v) * 1000000000000n;
    } else {
      full[i] = row >= 6 ? fill : dtype.startsWith("float") ? v / 8 : v;
    }
  }
  const written = full.slice(0, 6 * SHAPE[1]);
  await zarr.set(arr, [zarr.slice(0, 6), null], { data: written, shape: [6, SHAPE[1]], stride: [SHAPE[1], 1] });
  // read back with zarrita itself
  const back = await zarr.get(arr);
  for (let i = 0; i < n; i++) {
    // zarrita's chunk may come back strided (transpose): index it by its strides
    const a = back.data[Math.floor(i / SHAPE[1]) * back.stride[0] + (i % SHAPE[1]) * back.stride[1]];
    const b = full[i];
    if (!(a === b || (Number.isNaN(a) && Number.isNaN(b)))) throw new Error(`${name}[${i}]: ${a} != ${b}`);
  }
  fs.writeFileSync(path.join(out, "expected", `${name}.bin`), Buffer.from(full.buffer));
  cases.push({ store: "stores/zarrita.zarr", path: name, data_type: dtype, shape: SHAPE, expected: `expected/${name}.bin`,
    what: `zarrita ${version}: ${codecs.map((c) => c.name).join(", ")}` });
}
fs.writeFileSync(path.join(out, "cases.json"), JSON.stringify({ writer: `zarrita ${version} (node ${process.version})`, cases }, null, 1) + "\n");
