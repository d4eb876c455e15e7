"""Rewrites testdata/outer/{expected,cases.json}: index lists (numpy's outer indexing, `np.ix_`)
over stores of the other sets, no store of its own.

Expected values: tensorstore reads each whole array and numpy indexes it with `a[np.ix_(...)]`
(`selection.outer`); tensorstore's own outer indexing (`t.oindex[...]`) must agree. The strings
come from the extensions set's whole-array values (numpy wrote them; tensorstore cannot open that
store), indexed by numpy the same way.

    .venv/bin/python testdata/outer/generate_outer.py
"""
import json
import pathlib
import shutil
import sys

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from selection import outer, to_index  # noqa: E402  (testdata/selection.py)

# (set, case name in that set's cases.json, selections)
READS = [
    # chunks (7, 6): unsorted, duplicates, negatives, lists on both dims, mixed with ranges
    ("core", "gzip", ["[0,29], [0,7,19]", "[14,3,3,-1], 2:17:3", "5, [19,0,6]", "[], :",
                      "[8], ...", "[27,1,13], [5,5]"]),
    # chunks (6, 5), some chunks never written: their elements read as the fill value
    ("core", "sparse_interior", ["[0,7,20,39], [0,12,13,29]", "[8,9,15], 10:25"]),
    ("core", "never_written", ["[3,17], [0,19]"]),
    # transpose codec, three dimensions
    ("core", "transpose_3d", ["[10,0,4], [6,1], [0,4,2]", ":, [2], 1:4"]),
    ("core", "one_d", ["[99,0,50,16,17,-17]"]),
    ("core", "dtype_complex64", ["[12,0], [9,1,2]"]),
    ("core", "dtype_bool", ["[3,4,11], [0,9]"]),
    # sharding: shards (10, 16) of inner chunks (5, 4)
    ("sharding", "end_zstd", ["[0,29], [0,20,40]", "[6,7,21,-1], 3:40:7", "[], [1,2]",
                              "[12,11,10,19,0], [33,31,15]", "[12,11,10,19,0], :"]),
    ("sharding", "start_gzip_uint16", ["[24,0,9], [17,3], [6,0]", "[2,12], :, 3"]),
    ("sharding", "transpose_then_shard", ["[19,0,8,9], [11,0,4]"]),
    ("sharding", "nested", ["[31,0,17], [8,9,30]"]),
    # the bundled sample: sharded t2m and its coordinates, for the table layout's dimension columns
    ("sample", "t2m", ["[47,0,13], [72,0], [143,5,6]"]),
    ("sample", "time", ["[47,0,13]"]),
    ("sample", "lat", ["[72,0]"]),
    ("sample", "lon", ["[143,5,6]"]),
    # variable-length strings
    ("extensions", "string_vlen_zstd", ["[5,0,0], [6,2]", "[3], 1:7:2"]),
]


def le_bytes(x):
    x = np.ascontiguousarray(x)
    if x.dtype == bool:
        return x.astype(np.uint8).tobytes()
    return x.astype(x.dtype.newbyteorder("<"), copy=False).tobytes()


def main():
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "expected").mkdir()
    cases = []
    for set_name, name, sels in READS:
        src = HERE.parent / set_name
        if set_name == "sample":  # no cases.json: the array itself
            meta = json.loads((src / "climate.zarr" / name / "zarr.json").read_text())
            case = {"name": name, "store": "climate.zarr", "path": name, "data_type": meta["data_type"],
                    "shape": meta["shape"], "fill_value": meta["fill_value"]}
        else:
            case = next(c for c in json.loads((src / "cases.json").read_text())["cases"] if c["name"] == name)
        store = src / case["store"]
        out = {k: case[k] for k in ("name", "path", "data_type", "shape") if k in case}
        out["name"] = f"{set_name}_{name}"
        out["store"] = f"../{set_name}/{case['store']}"
        if "fill_value" in case:
            out["fill_value"] = case["fill_value"]
        strings = case["data_type"] == "string"
        if strings:
            full = np.asarray(json.loads((src / case["reads"][0]["expected"]).read_text()),
                              dtype=object).reshape(case["shape"])
            assert case["reads"][0]["slice"] == ""
            t = None
        else:
            t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file",
                                                        "path": str(store / case["path"])}}).result()
            full = t.read().result()
        reads = []
        for i, sel in enumerate(sels):
            want = outer(full, to_index(sel, full.shape))
            if t is not None and want.size:
                index = to_index(sel, full.shape)
                index = tuple(np.asarray(x, dtype=np.int64) if isinstance(x, list) else x for x in index)
                got = t.oindex[index].read().result()
                assert np.array_equal(got, want, equal_nan=want.dtype.kind in "fc"), (name, sel)
            exp = f"expected/{out['name']}.{i}." + ("json" if strings else "bin")
            if strings:
                (HERE / exp).write_text(json.dumps([str(v) for v in np.ravel(want)], ensure_ascii=False))
            else:
                (HERE / exp).write_bytes(le_bytes(want))
            reads.append({"slice": sel, "shape": list(want.shape), "expected": exp})
        out["reads"] = reads
        cases.append(out)
    (HERE / "cases.json").write_text(json.dumps({"cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
