"""Zarr v3 *draft* stores (the 2019-2022 editor's drafts: root zarr.json with the protocol URI,
metadata under meta/, chunks under data/root/), written by zarr-python 2 with its experimental v3
API, plus zarrita's draft-layout example from the zarr_implementations project. Expected values:
zarr-python 2's own reads.

Run from the repository root with Debian's zarr-python 2.13 (python3-zarr):

    /usr/bin/python3 testdata/v3draft/generate_v3draft.py [ZARR_IMPLEMENTATIONS_CHECKOUT]

(if numpy cannot find liblapack.so.3, add LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread).
The script sets ZARR_V3_EXPERIMENTAL_API=1 itself. Rewrites stores/hierarchy.zr3,
stores/may2022.zr3, expected/ and cases.json; with a checkout of
https://github.com/zarr-developers/zarr_implementations (MIT, see stores/zarrita.LICENSE) it also
copies that project's examples/zarrita.zr3 (written by zarrita 0.1) into stores/, and takes its
expected image from the same project's v2 copy, examples/zarr.zr, read by zarr-python 2 (all four
v2 arrays must agree). Without the checkout, the copied store already in stores/ and its expected
image, expected/zarrita_image.bin, are kept.

- hierarchy.zr3: the root group and nested groups with attributes (grp, grp/sub), an implicit group
  (sparse: no .group.json, only an array below it); float32 with a NaN fill value under blosc-lz4
  with bit shuffle, gzip, zlib, lz4 and no compressor; int16 in F layout; a big-endian int64 with
  chunk_grid separator "."; a uint8 with fill value 7 and missing chunks.
- consolidated.zr3: zarr-python's consolidated metadata for the drafts
  (meta/root/consolidated/.zmetadata, zarr.consolidate_metadata), so a store that cannot list
  (http://) lists its whole hierarchy; expected values from zarr.open_consolidated's read.
- may2022.zr3: the May 2022 draft's metadata keys (meta/<path>.array.json, without root/): the
  same zarr-python 2 store, its metadata documents moved from meta/root/<path> to meta/<path> by
  this script (no writer of that form is packaged); chunks and values are zarr-python's.
"""
import json
import os
import pathlib
import shutil
import sys

os.environ["ZARR_V3_EXPERIMENTAL_API"] = "1"

import numcodecs  # noqa: E402
import numpy as np  # noqa: E402
import zarr  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import to_index  # noqa: E402  (testdata/selection.py)
assert zarr.__version__.startswith("2."), zarr.__version__

NAMES = {"i": "int", "u": "uint", "f": "float"}
ZARRITA_SHAPE = (512, 512, 3)
READS = ["", "1:6, 2:9", "::3, -1", "-2:, ::2"]


def data_type(dtype):
    dt = np.dtype(dtype)
    return NAMES[dt.kind] + str(8 * dt.itemsize)


def values(dtype, shape, rng):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        v = rng.normal(0, 100, shape).astype(dt)
        v.flat[::11] = np.nan
        return v
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt.newbyteorder("=")).astype(dt)


def write_expected(name, full, reads):
    out = []
    for i, sel in enumerate(reads):
        got = np.ascontiguousarray(full[to_index(sel, full.shape)])
        got = got.astype(got.dtype.newbyteorder("<"))
        exp = f"expected/{name}.{i}.bin"
        (HERE / exp).write_bytes(got.tobytes())
        out.append({"slice": sel, "shape": list(got.shape), "expected": exp})
    return out


def hierarchy(store_dir, rng):
    store = zarr.DirectoryStoreV3(str(store_dir))
    root = zarr.group(store=store, zarr_version=3, path="/")
    root.attrs.update({"title": "v3 draft fixtures", "writer": f"zarr-python {zarr.__version__}"})
    grp = root.create_group("grp")
    grp.attrs.update({"kind": "floats", "levels": [1, 2, 3]})
    sub = grp.create_group("sub")
    sub.attrs["nested"] = {"deep": True}
    shape, chunks = (7, 10), (3, 4)
    specs = [
        # path, dtype, compressor, order, fill, separator
        ("grp/blosc_lz4_bitshuffle", "<f4",
         numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.BITSHUFFLE), "C", np.nan, "/"),
        ("grp/gzip", "<f4", numcodecs.GZip(level=5), "C", np.nan, "/"),
        ("grp/zlib", "<f4", numcodecs.Zlib(level=3), "C", np.nan, "/"),
        ("grp/lz4", "<f4", numcodecs.LZ4(acceleration=1), "C", np.nan, "/"),
        ("grp/raw", "<f4", None, "C", np.nan, "/"),
        ("grp/sub/int16_F", "<i2", numcodecs.Zlib(level=1), "F", -3, "/"),
        ("big_int64", ">i8", numcodecs.GZip(level=1), "C", 42, "."),
        ("sparse/uint8_fill", "|u1", numcodecs.Blosc(cname="zstd", clevel=3, shuffle=1), "C", 7, "/"),
    ]
    cases = []
    for path, dtype, compressor, order, fill, sep in specs:
        z = root.create_dataset(path, shape=shape, chunks=chunks, dtype=dtype, compressor=compressor,
                                order=order, fill_value=fill, dimension_separator=sep)
        z.attrs["written_by"] = f"zarr-python {zarr.__version__} (ZARR_V3_EXPERIMENTAL_API)"
        data = values(dtype, shape, rng)
        if path.startswith("sparse/"):
            z[0:3, 4:8] = data[0:3, 4:8]  # one chunk written, the other eight missing (fill 7)
            z[6:7, 0:4] = data[6:7, 0:4]  # an edge chunk
        else:
            z[:6, :8] = data[:6, :8]      # the last chunk row and column stay missing (fill value)
        full = zarr.open_array(store=zarr.DirectoryStoreV3(str(store_dir)), path=path, mode="r",
                               zarr_version=3)[...]
        name = path.replace("/", "_")
        cases.append({"name": name, "store": f"stores/{store_dir.name}", "path": path,
                      "data_type": data_type(dtype), "shape": list(shape),
                      "reads": write_expected(name, full, READS)})
    nodes = [{"path": "/", "kind": "group"}, {"path": "/grp", "kind": "group"},
             {"path": "/grp/sub", "kind": "group"}, {"path": "/sparse", "kind": "group", "implicit": True}]
    nodes += [{"path": "/" + c["path"], "kind": "array"} for c in cases]
    attributes = {"/": dict(root.attrs), "/grp": dict(grp.attrs), "/grp/sub": dict(sub.attrs)}
    return cases, {"store": f"stores/{store_dir.name}", "nodes": nodes, "attributes": attributes}


def consolidated(store_dir, rng):
    store = zarr.DirectoryStoreV3(str(store_dir))
    root = zarr.group(store=store, zarr_version=3, path="/")
    root.attrs["consolidated"] = True
    z = root.create_dataset("obs/temp", shape=(6, 5), chunks=(4, 2), dtype="<f4",
                            compressor=numcodecs.BZ2(level=1), fill_value=-1.5)
    z[:4, :] = values("<f4", (4, 5), rng)
    zarr.consolidate_metadata(store, path="")
    full = zarr.open_consolidated(zarr.DirectoryStoreV3(str(store_dir)), path="", mode="r",
                                  zarr_version=3)["obs/temp"][...]
    return [{"name": "consolidated_obs_temp", "store": f"stores/{store_dir.name}", "path": "obs/temp",
             "data_type": "float32", "shape": [6, 5],
             "reads": write_expected("consolidated_obs_temp", full, ["", "3:, ::2"])}]


def may2022(store_dir, rng):
    """A zarr-python store with its metadata keys moved to the May 2022 form, meta/<path>.array.json."""
    store = zarr.DirectoryStoreV3(str(store_dir))
    zarr.group(store=store, zarr_version=3, path="/")
    z = zarr.create(store=store, path="obs/temp", shape=(9, 5), chunks=(4, 2), dtype="<f8",
                    compressor=numcodecs.GZip(level=1), fill_value=np.nan, zarr_version=3)
    z[:8, :4] = values("<f8", (8, 4), rng)
    full = z[...]
    meta = store_dir / "meta"
    (meta / "obs").mkdir()
    (meta / "root" / "obs" / "temp.array.json").rename(meta / "obs" / "temp.array.json")
    shutil.rmtree(meta / "root")
    (meta / "root.group.json").unlink()  # the root is then an implicit group
    return [{"name": "may2022_obs_temp", "store": f"stores/{store_dir.name}", "path": "obs/temp",
             "data_type": "float64", "shape": [9, 5], "reads": write_expected("may2022_obs_temp", full, ["", "2:9:3, 1:"])}]


def zarrita(checkout):
    """zarr_implementations' zarrita.zr3 (zarrita 0.1), and its image from the v2 copy (zarr-python 2)."""
    dest = HERE / "stores" / "zarrita.zr3"
    if checkout is not None:
        src = pathlib.Path(checkout)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src / "examples" / "zarrita.zr3", dest)
        shutil.copyfile(src / "LICENSE", HERE / "stores" / "zarrita.LICENSE")
        v2 = zarr.open_group(str(src / "examples" / "zarr.zr"), mode="r")
        images = [v2[name][...] for name in ("raw", "gzip", "zlib", "blosc")]
        for other in images[1:]:
            assert np.array_equal(images[0], other)
        image = images[0]
        assert image.shape == ZARRITA_SHAPE and image.dtype == np.uint8
        (HERE / "expected" / "zarrita_image.bin").write_bytes(image.tobytes())
    image = np.fromfile(HERE / "expected" / "zarrita_image.bin", dtype=np.uint8).reshape(ZARRITA_SHAPE)
    cases = []
    for i, path in enumerate(["raw", "gzip", "zlib", "blosc/lz4"]):
        name = "zarrita_" + path.replace("/", "_")
        reads = [{"slice": "", "shape": list(image.shape), "expected": "expected/zarrita_image.bin"}]
        sel = ["100:230, 40:90, 1", "::50, 500:, :", "511, :, 2", "300:320, 17, :"][i]
        got = np.ascontiguousarray(image[to_index(sel, image.shape)])
        exp = f"expected/{name}.1.bin"
        (HERE / exp).write_bytes(got.tobytes())
        reads.append({"slice": sel, "shape": list(got.shape), "expected": exp})
        cases.append({"name": name, "store": "stores/zarrita.zr3", "path": path, "data_type": "uint8",
                      "shape": list(image.shape), "reads": reads})
    return cases


def main():
    checkout = sys.argv[1] if len(sys.argv) > 1 else None
    keep = HERE / "expected" / "zarrita_image.bin"
    kept = keep.read_bytes() if keep.exists() and checkout is None else None
    for d in ("stores/hierarchy.zr3", "stores/consolidated.zr3", "stores/may2022.zr3", "expected"):
        shutil.rmtree(HERE / d, ignore_errors=True)
    (HERE / "expected").mkdir(parents=True)
    if kept is not None:
        keep.write_bytes(kept)
    rng = np.random.default_rng(48)
    cases, hier = hierarchy(HERE / "stores" / "hierarchy.zr3", rng)
    cases += consolidated(HERE / "stores" / "consolidated.zr3", rng)
    cases += may2022(HERE / "stores" / "may2022.zr3", rng)
    if checkout is not None or keep.exists():
        cases += zarrita(checkout)
    doc = {"writer": f"zarr-python {zarr.__version__}, numcodecs {numcodecs.__version__}, numpy {np.__version__}",
           "cases": cases, "hierarchy": hier}
    (HERE / "cases.json").write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
