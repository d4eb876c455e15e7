// Reads one Arrow IPC stream from zaro's HTTP server with Arrow JS, as a browser or Node user would
// (`tableFromIPC(await fetch(url))`), and prints what it got as JSON for the Python test to check:
// the column names and type names, the row count, and every value in row order (a tensor-layout
// row flattened).  node read_http.mjs URL
//
// Arrow JS decodes compressed IPC buffers with codecs its user registers: zstd (fzstd) and LZ4
// frames (lz4js), both pure JavaScript, as a browser page would register them.
import { CompressionType, compressionRegistry, tableFromIPC } from "apache-arrow";
import { decompress as zstd } from "fzstd";
import lz4 from "lz4js";

// copies: a view at an offset that is not a multiple of 8 fails for 64-bit columns
compressionRegistry.set(CompressionType.ZSTD, { decode: (bytes) => zstd(bytes).slice() });
compressionRegistry.set(CompressionType.LZ4_FRAME, {
  decode: (bytes) => Uint8Array.from(lz4.decompress(bytes)),
});

const url = process.argv[2];
const response = await fetch(url);
if (!response.ok) {
  console.error(`HTTP ${response.status}: ${await response.text()}`);
  process.exit(1);
}
const table = await tableFromIPC(response);
const columns = {};
for (const field of table.schema.fields) {
  const vector = table.getChild(field.name);
  const values = [];
  for (const v of vector) {
    if (v !== null && typeof v === "object" && typeof v.toArray === "function") {
      for (const x of v.toArray()) values.push(typeof x === "bigint" ? Number(x) : x);
    } else {
      values.push(typeof v === "bigint" ? Number(v) : v);
    }
  }
  columns[field.name] = { type: String(field.type), values };
}
console.log(JSON.stringify({
  rows: table.numRows,
  contentType: response.headers.get("content-type"),
  columns,
}));
