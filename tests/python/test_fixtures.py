"""The fixtures themselves, checked without zaro: they are what the Java and CLI tests trust.

- every expected .bin of a tensorstore-written store equals tensorstore's full read indexed
  with numpy itself (so negative indices and steps follow numpy, not a hand conversion), and
  the recorded shape is numpy's;
- every zarr.json is standard v3 metadata (or a v3 draft store's entry point, testdata/v3draft) and no
  file under testdata/ holds an absolute path;
- the v3 draft stores follow the draft layout: node documents under meta/, chunk keys under data/root/;
- chunk files are named by the array's chunk key encoding, inside the chunk grid;
- the hierarchy listed in testdata/core/cases.json is what is on disk;
- testdata/core still covers what it promises (data types, fill forms, codecs, key encodings,
  ranks, missing chunks), so a regeneration cannot drop coverage silently;
- the bundled sample opens with tensorstore and has the documented shape and attributes.

Runs in seconds: .venv/bin/python -m pytest tests/python/test_fixtures.py -q
"""
import itertools
import json
import math
import pathlib
import re
import sys

import numpy as np
import pytest
import tensorstore as ts

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "testdata"))
from selection import has_lists, outer, to_index  # noqa: E402  (testdata/selection.py)

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"
CORE = TESTDATA / "core"
SAMPLE = TESTDATA / "sample" / "climate.zarr"

CORE_TYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
              "float16", "float32", "float64", "complex64", "complex128"]
ARRAY_KEYS = {"zarr_format", "node_type", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
              "fill_value", "codecs"}
ARRAY_OPTIONAL = {"attributes", "dimension_names", "storage_transformers"}
DRAFT_PROTOCOL = "https://purl.org/zarr/spec/protocol/core/3.0"
DRAFT_ARRAY_KEYS = {"shape", "data_type", "chunk_grid", "chunk_memory_layout", "fill_value", "attributes",
                    "extensions"}
V3DRAFT = TESTDATA / "v3draft"
GROUP_OPTIONAL = {"attributes", "consolidated_metadata"}


def numpy_index(sel):
    """The zaro/numpy selection string as a plain numpy index (numpy semantics, negatives included);
    index lists (outer indexing) go through `select`."""
    if not sel.strip():
        return ()
    out = []
    for part in sel.split(","):
        part = part.strip()
        if ":" in part:
            out.append(slice(*[int(b) if b.strip() else None for b in part.split(":")]))
        else:
            out.append(int(part))
    return tuple(out)


def le_bytes(x):
    x = np.ascontiguousarray(x)
    if x.dtype == bool:
        return x.astype(np.uint8).tobytes()
    if x.dtype.name in ("int2", "int4"):  # ml_dtypes keeps the upper bits clear; expected: int8 values
        return x.astype(np.int8).tobytes()
    return x.astype(x.dtype.newbyteorder("<"), copy=False).tobytes()


def meta_of(store, path):
    f = store / path / "zarr.json"
    return json.loads(f.read_text()) if f.exists() else None


def case_sets():
    """(set dir, cases.json document) for every fixture set whose stores are Zarr v3 directories."""
    out = []
    for cases_json in sorted(TESTDATA.glob("*/cases.json")):
        doc = json.loads(cases_json.read_text())
        if all(meta_of(cases_json.parent / c["store"], c["path"]) for c in doc.get("cases", [])):
            out.append((cases_json.parent, doc))
    return out


def tensorstore_reads():
    out = []
    for set_dir, doc in case_sets():
        for case in doc["cases"]:
            meta = meta_of(set_dir / case["store"], case["path"])
            if meta.get("attributes", {}).get("written_by", "").startswith("numpy+"):
                continue  # data types tensorstore cannot write; their expected values come from numpy
            for i, read in enumerate(case["reads"]):
                out.append(pytest.param(set_dir, case, read, id=f"{set_dir.name}/{case['name']}.{i}[{read['slice']}]"))
    return out


_full_reads = {}


def full_read(store):
    key = str(pathlib.Path(store).resolve())  # tensorstore refuses '..' (testdata/outer's stores)
    if key not in _full_reads:
        t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": key}}).result()
        _full_reads[key] = t.read().result()
    return _full_reads[key]


@pytest.mark.parametrize("set_dir,case,read", tensorstore_reads())
def test_expected_equals_tensorstore_with_numpy_indexing(set_dir, case, read):
    store = set_dir / case["store"] / case["path"]
    full = full_read(store)
    assert list(full.shape) == case["shape"]
    meta = meta_of(set_dir / case["store"], case["path"])
    assert meta["data_type"] == case["data_type"]
    if "fill_value" in case:
        assert case["fill_value"] == meta["fill_value"]
    sel = read["slice"]
    want = outer(full, to_index(sel)) if has_lists(sel) else full[numpy_index(sel)]
    if case.get("values") == "float32":  # ML float types: zaro reads their values widened (ml_dtypes' astype)
        want = np.asarray(want).astype(np.float32)
    assert list(np.shape(want)) == read["shape"]
    assert (set_dir / read["expected"]).read_bytes() == le_bytes(want)


def all_zarr_json():
    return sorted(p for p in TESTDATA.rglob("zarr.json"))


def test_every_zarr_json_is_standard_v3():
    files = all_zarr_json()
    assert len(files) > 50
    for f in files:
        doc = json.loads(f.read_text())
        if doc["zarr_format"] == DRAFT_PROTOCOL:  # a v3 draft store's entry point: see below
            assert f.parent.parent == V3DRAFT / "stores", f
            continue
        assert doc["zarr_format"] == 3, f
        kind = doc["node_type"]
        if kind == "array":
            assert ARRAY_KEYS <= set(doc), f
            extra = set(doc) - ARRAY_KEYS - ARRAY_OPTIONAL
            grid = doc["chunk_grid"]
            if grid["name"] == "rectilinear":  # zarr-extensions chunk-grids/rectilinear
                assert grid["configuration"]["kind"] == "inline", f
                assert len(grid["configuration"]["chunk_shapes"]) == len(doc["shape"]), f
            else:
                assert grid["name"] == "regular" and len(grid["configuration"]["chunk_shape"]) == len(doc["shape"]), f
            assert doc["chunk_key_encoding"]["name"] in ("default", "v2"), f
            assert doc.get("storage_transformers", []) == [], f
            if "dimension_names" in doc:
                assert len(doc["dimension_names"]) == len(doc["shape"]), f
        else:
            assert kind == "group", f
            extra = set(doc) - {"zarr_format", "node_type"} - GROUP_OPTIONAL
        for key in extra:  # only extensions a reader may ignore
            assert isinstance(doc[key], dict) and doc[key].get("must_understand") is False, (f, key)


def test_no_absolute_paths_in_testdata():
    needles = [str(ROOT).encode(), b"/tmp/", b"file://", b"/home/"]
    for f in TESTDATA.rglob("*"):
        if f.is_file() and f.suffix not in (".py", ".mjs", ".sh") and f.name != "README.md":  # generators may name tmp dirs
            data = f.read_bytes()
            for needle in needles:
                assert needle not in data, (f, needle)


def chunk_key(meta, idx):
    enc = meta["chunk_key_encoding"]
    sep = enc.get("configuration", {}).get("separator", "/" if enc["name"] == "default" else ".")
    if enc["name"] == "default":
        return sep.join(["c"] + [str(i) for i in idx])
    return sep.join(str(i) for i in idx) if idx else "0"


def grid_shape(meta):
    """Chunks per dimension that start inside the array, for the regular and rectilinear grids."""
    config = meta["chunk_grid"]["configuration"]
    if meta["chunk_grid"]["name"] == "regular":
        return [math.ceil(s / c) for s, c in zip(meta["shape"], config["chunk_shape"])]
    out = []
    for entry, size in zip(config["chunk_shapes"], meta["shape"]):
        if isinstance(entry, int):
            out.append(max(1, math.ceil(size / entry)))
            continue
        edges = [e for x in entry for e in ([x[0]] * x[1] if isinstance(x, list) else [x])]
        n, at = 0, 0
        while n < len(edges) and (at < size or n == 0):
            at += edges[n]
            n += 1
        out.append(n)
    return out


def tensorstore_array_stores():
    out = []
    for set_dir, doc in case_sets():
        for case in doc["cases"]:
            store = set_dir / case["store"] / case["path"]
            if store not in out:
                out.append(store)
    return out


@pytest.mark.parametrize("store", tensorstore_array_stores(), ids=lambda s: str(s.relative_to(TESTDATA)))
def test_chunk_files_follow_the_key_encoding(store):
    meta = meta_of(store, "")
    grid = grid_shape(meta)
    keys = {chunk_key(meta, idx) for idx in itertools.product(*[range(g) for g in grid])}
    # files of nested arrays (a hierarchy store) belong to those arrays
    nested = {p.parent for p in store.rglob("zarr.json") if p.parent != store}
    for f in store.rglob("*"):
        if f.is_file() and f.name != "zarr.json" and not any(n in f.parents for n in nested):
            assert f.relative_to(store).as_posix() in keys, f


def draft_stores():
    return sorted(f.parent for f in (V3DRAFT / "stores").glob("*/zarr.json"))


@pytest.mark.parametrize("store", draft_stores(), ids=lambda s: s.name)
def test_v3_draft_stores_follow_the_draft_layout(store):
    entry = json.loads((store / "zarr.json").read_text())
    assert entry == {"zarr_format": DRAFT_PROTOCOL, "metadata_encoding": DRAFT_PROTOCOL,
                     "metadata_key_suffix": ".json", "extensions": []}
    arrays = {}
    for f in (store / "meta").rglob("*.json"):
        rel = f.relative_to(store / "meta").as_posix()
        node = rel.removeprefix("root/").rsplit(".", 2)[0]
        doc = json.loads(f.read_text())
        if rel.endswith(".array.json"):
            assert DRAFT_ARRAY_KEYS <= set(doc) <= DRAFT_ARRAY_KEYS | {"compressor", "dimension_separator"}, f
            assert doc["chunk_grid"]["type"] == "regular" and doc["chunk_memory_layout"] in ("C", "F"), f
            assert len(doc["chunk_grid"]["chunk_shape"]) == len(doc["shape"]), f
            if "compressor" in doc:
                assert doc["compressor"]["codec"].startswith("https://purl.org/zarr/spec/codec/"), f
            arrays[node] = doc
        else:
            assert rel.endswith(".group.json") and set(doc) <= {"attributes", "extensions"}, f
    assert arrays
    for node, doc in arrays.items():
        grid = [math.ceil(s / c) for s, c in zip(doc["shape"], doc["chunk_grid"]["chunk_shape"])]
        sep = doc["chunk_grid"]["separator"]
        keys = {"c" + sep.join(map(str, idx)) for idx in itertools.product(*[range(g) for g in grid])}
        for f in (store / "data" / "root" / node).rglob("*"):
            if f.is_file():
                assert f.relative_to(store / "data" / "root" / node).as_posix() in keys, f
    for f in (store / "data" / "root").rglob("*"):  # every chunk belongs to an array
        if f.is_file():
            assert any(f.relative_to(store / "data" / "root").as_posix().startswith(a + "/") for a in arrays), f


def test_v3_draft_cases_name_their_arrays():
    doc = json.loads((V3DRAFT / "cases.json").read_text())
    for case in doc["cases"]:
        store = V3DRAFT / case["store"]
        meta = store / "meta" / "root" / f"{case['path']}.array.json"
        meta = meta if meta.exists() else store / "meta" / f"{case['path']}.array.json"
        assert json.loads(meta.read_text())["shape"] == case["shape"], case["name"]
        for read in case["reads"]:
            n = np.dtype(np.dtype({"float32": "f4", "float64": "f8", "int16": "i2", "int64": "i8",
                                   "uint8": "u1"}[case["data_type"]])).itemsize
            assert (V3DRAFT / read["expected"]).stat().st_size == n * int(np.prod(read["shape"])), read


def core_doc():
    return json.loads((CORE / "cases.json").read_text())


def test_hierarchy_on_disk_matches_cases_json():
    h = core_doc()["hierarchy"]
    store = CORE / h["store"]
    for node in h["nodes"]:
        rel = node["path"].strip("/")
        meta = meta_of(store, rel)
        if node["implicit"]:
            assert (store / rel).is_dir() and meta is None, node
            continue
        assert meta is not None and meta["node_type"] == node["kind"], node
        assert meta.get("attributes", {}) == h["attributes"].get(node["path"], {}), node
    # every zarr.json and every implicit directory on the way to an array is listed
    listed = {n["path"] for n in h["nodes"]}
    for f in store.rglob("zarr.json"):
        rel = f.parent.relative_to(store).as_posix()
        assert ("/" + rel if rel != "." else "/") in listed, f
    kinds = {n["kind"] for n in h["nodes"]}
    assert kinds == {"group", "array"} and any(n["implicit"] for n in h["nodes"])
    depths = {n["path"].count("/") for n in h["nodes"] if n["kind"] == "array"}
    assert len(depths) >= 3


def chunk_present(store, meta, idx):
    return (store / chunk_key(meta, idx)).is_file()


def chunks_touched(meta, sel):
    shape, chunks = meta["shape"], meta["chunk_grid"]["configuration"]["chunk_shape"]
    index = np.arange(int(np.prod(shape)) if shape else 1).reshape(shape)[numpy_index(sel)]
    return {tuple(int(i) // c for i, c in zip(np.unravel_index(flat, shape), chunks)) for flat in np.ravel(index)}


def test_core_covers_what_it_promises():
    doc = core_doc()
    metas = {c["name"]: (CORE / c["store"] / c["path"], meta_of(CORE / c["store"], c["path"])) for c in doc["cases"]}
    names = [c["name"] for c in doc["cases"]]
    assert len(names) == len(set(names))
    assert {m["data_type"] for _, m in metas.values()} >= set(CORE_TYPES)
    assert {len(m["shape"]) for _, m in metas.values()} >= {0, 1, 2, 3, 4}

    fills = [json.dumps(m["fill_value"]) for _, m in metas.values()]
    for form in ['"NaN"', '"Infinity"', '"-Infinity"', '"0x', "[", "true"]:
        assert any(f.startswith(form) or form in f for f in fills), form
    assert any(m["data_type"].startswith("int") and m["fill_value"] not in (0, None) for _, m in metas.values())

    codecs = [json.dumps(c, sort_keys=True) for _, m in metas.values() for c in m["codecs"]]
    for want in ['"endian": "little"', '"endian": "big"', '"name": "transpose"', '"name": "crc32c"',
                 '"checksum": true', '"checksum": false']:
        assert any(want in c for c in codecs), want
    assert len({c for c in codecs if '"name": "gzip"' in c}) >= 2  # two levels
    assert any([c["name"] for c in m["codecs"]] == ["transpose", "bytes", "zstd", "crc32c"] for _, m in metas.values())
    orders = {tuple(c["configuration"]["order"]) for _, m in metas.values() for c in m["codecs"] if c["name"] == "transpose"}
    assert (2, 0, 1) in orders and (1, 0) in orders

    encodings = [m["chunk_key_encoding"] for _, m in metas.values()]
    separators = {(e["name"], e.get("configuration", {}).get("separator", "/" if e["name"] == "default" else "."))
                  for e in encodings}
    assert separators >= {("default", "/"), ("default", "."), ("v2", "."), ("v2", "/")}
    # the separator both implicit (as tensorstore writes it) and explicit (as zarr-python writes it)
    assert {"name": "default"} in encodings
    assert {"name": "default", "configuration": {"separator": "/"}} in encodings

    assert any("dimension_names" in m and m.get("attributes") for _, m in metas.values())

    # reads: negative indices, integer indices, steps larger than a chunk, and reads of missing chunks only
    slices = [(metas[c["name"]], r["slice"]) for c in doc["cases"] for r in c["reads"]]
    assert any(re.search(r"(^|[,:\s])-\d", s) for _, s in slices)
    assert any(isinstance(i, int) for _, s in slices for i in numpy_index(s))
    assert any(isinstance(i, slice) and (i.step or 1) > c
               for (_, m), s in slices
               for i, c in zip(numpy_index(s), m["chunk_grid"]["configuration"]["chunk_shape"]))
    only_missing = 0
    interior = 0
    for (store, meta), s in slices:
        touched = chunks_touched(meta, s)
        if not any(chunk_present(store, meta, i) for i in touched):
            only_missing += 1
            grid = [math.ceil(a / b) for a, b in zip(meta["shape"], meta["chunk_grid"]["configuration"]["chunk_shape"])]
            if any(chunk_present(store, meta, i) for i in itertools.product(*[range(g) for g in grid])):
                interior += 1  # a store that has other chunks
    assert only_missing >= 3 and interior >= 2


def test_sample_opens_with_tensorstore():
    root = json.loads((SAMPLE / "zarr.json").read_text())
    assert root["node_type"] == "group"
    for key in ["title", "Conventions", "source", "history"]:
        assert key in root["attributes"]
    assert root["attributes"]["Conventions"] == "CF-1.8"

    def read(name):
        return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / name)}}).result()

    t2m = read("t2m")
    assert t2m.shape == (48, 73, 144) and t2m.dtype == ts.float32
    meta = meta_of(SAMPLE, "t2m")
    assert meta["dimension_names"] == ["time", "lat", "lon"]
    assert meta["attributes"]["units"] == "K" and meta["attributes"]["standard_name"] == "air_temperature"
    values = t2m.read().result()
    assert np.isfinite(values).all() and 200 < values.min() and values.max() < 330
    lat = read("lat").read().result()
    np.testing.assert_allclose(lat, np.arange(90, -90.1, -2.5))
    lon = read("lon").read().result()
    np.testing.assert_allclose(lon, np.arange(0, 360, 2.5))
    assert meta_of(SAMPLE, "time")["attributes"]["units"].startswith("hours since 2020-01-01")
    precip_meta = meta_of(SAMPLE, "precip")
    assert precip_meta["data_type"] == "int16"
    for key in ["scale_factor", "add_offset", "_FillValue"]:
        assert key in precip_meta["attributes"]
    precip = read("precip").read().result()
    missing = precip == precip_meta["attributes"]["_FillValue"]
    assert missing.any() and not missing.all()
    size = sum(f.stat().st_size for f in SAMPLE.rglob("*") if f.is_file())
    assert size < 2_600_000
