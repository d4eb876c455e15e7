"""Kerchunk reference fixtures over real HDF5 files written by h5py.

Run from the repository root: .venv/bin/python testdata/kerchunk/generate_kerchunk.py
(needs h5py and numpy; kerchunk itself is not used: the references are written here from
h5py's own chunk index, `dset.id.get_chunk_info(i)`, so zaro never computes an offset).

Writes into testdata/kerchunk/:
  data/simple.h5        plain HDF5: deflate (zlib) 2-d float32 with edge chunks,
                        shuffle+deflate int32, uncompressed big-endian int16, deflate uint16
                        with two chunks never written (absent keys: fill value), and a
                        contiguous float64 dataset (split into virtual chunks)
  data/weather.nc       NetCDF4-like HDF5 (dimension scales time/lat/lon, CF attributes,
                        _FillValue, deflate chunks)
  simple.v0.json        version 0 references (relative urls, inline text and base64 values)
  simple.v1.json        version 1: templates for the url, `gen` entries splitting the
                        contiguous dataset into virtual chunks with offset arithmetic
  weather.v1.json       version 1 references of the NetCDF4-like file
  manifest.json         per reference file and array: shape, dtype, fill, expected file,
                        and every chunk key with h5py's file offset, stored size, filters
                        and the sha256 of the decoded (inflated/unshuffled) chunk bytes
  expected/*.bin        each array's values as h5py reads them, C order, little endian
  simple.parq/, weather.parq/
                        the same references in kerchunk's Parquet layout (written with pyarrow)
  local_target.parq/    one reference to an absolute local path (refused over the network)
"""
import base64
import hashlib
import json
import pathlib
import shutil
import zlib

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
EXPECTED = HERE / "expected"


def fill_json(dset):
    fv = dset.fillvalue
    if dset.dtype.kind == "f":
        v = float(fv)
        if np.isnan(v):
            return "NaN"
        return v
    return int(fv)


def filters_of(dset):
    """(numcodecs filters, numcodecs compressor, names) of an HDF5 dataset's filter pipeline."""
    filters = []
    compressor = None
    names = []
    if dset.shuffle:
        filters.append({"id": "shuffle", "elementsize": dset.dtype.itemsize})
        names.append("shuffle")
    if dset.compression == "gzip":
        # HDF5's deflate filter writes a zlib stream (RFC 1950), numcodecs' "zlib"
        compressor = {"id": "zlib", "level": dset.compression_opts}
        names.append("zlib")
    elif dset.compression is not None:
        raise ValueError(f"unsupported filter {dset.compression}")
    return filters or None, compressor, names


def unshuffle(raw, itemsize):
    a = np.frombuffer(raw, dtype=np.uint8)
    n = len(a) // itemsize
    return a[: n * itemsize].reshape(itemsize, n).T.tobytes() + a[n * itemsize:].tobytes()


def zarray(dset, chunks, filters, compressor):
    return {
        "chunks": list(chunks),
        "compressor": compressor,
        "dtype": dset.dtype.str,
        "fill_value": fill_json(dset),
        "filters": filters,
        "order": "C",
        "shape": list(dset.shape),
        "zarr_format": 2,
    }


def attrs_of(obj):
    out = {}
    for k, v in obj.attrs.items():
        if k in ("DIMENSION_LIST", "REFERENCE_LIST", "CLASS", "NAME", "_Netcdf4Dimid", "_Netcdf4Coordinates"):
            continue
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def chunk_refs(dset, url, path):
    """References for a chunked dataset from h5py's chunk index; and the manifest rows."""
    filters, compressor, names = filters_of(dset)
    refs = {}
    manifest = {}
    chunks = dset.chunks
    for i in range(dset.id.get_num_chunks()):
        info = dset.id.get_chunk_info(i)
        index = [o // c for o, c in zip(info.chunk_offset, chunks)]
        key = f"{path}/" + ".".join(str(x) for x in index)
        assert info.filter_mask == 0, "a skipped filter would change the encoding"
        refs[key] = [url, int(info.byte_offset), int(info.size)]
        with open(dset.file.filename, "rb") as f:
            f.seek(info.byte_offset)
            raw = f.read(info.size)
        decoded = zlib.decompress(raw) if "zlib" in names else raw
        if "shuffle" in names:
            decoded = unshuffle(decoded, dset.dtype.itemsize)
        # h5py's own chunk read agrees with the offsets
        fmask, direct = dset.id.read_direct_chunk(info.chunk_offset)
        assert direct == raw and fmask == 0
        manifest[key] = {"offset": int(info.byte_offset), "size": int(info.size),
                         "filters": names, "decoded_sha256": hashlib.sha256(decoded).hexdigest()}
    return refs, manifest, zarray(dset, chunks, filters, compressor)


def write_expected(name, arr):
    a = np.ascontiguousarray(arr)
    a = a.astype(a.dtype.newbyteorder("<")) if a.dtype.byteorder == ">" else a
    (EXPECTED / f"{name}.bin").write_bytes(a.tobytes())
    return f"expected/{name}.bin"


def make_simple():
    path = DATA / "simple.h5"
    rng = np.random.default_rng(7)
    with h5py.File(path, "w", libver="latest") as f:
        f.attrs["title"] = "zaro kerchunk fixture"
        t = f.create_dataset("temp", track_times=False, shape=(10, 12), chunks=(4, 5), dtype="<f4", compression="gzip",
                             compression_opts=4, fillvalue=np.float32(-999.0))
        t[...] = (rng.standard_normal((10, 12)) * 10 + 280).astype("<f4")
        t.attrs["units"] = "K"
        s = f.create_dataset("shuffled", track_times=False, shape=(9, 7), chunks=(4, 4), dtype="<i4", compression="gzip",
                             compression_opts=6, shuffle=True)
        s[...] = rng.integers(-100000, 100000, size=(9, 7), dtype="<i4")
        b = f.create_dataset("big", track_times=False, shape=(11,), chunks=(4,), dtype=">i2")
        b[...] = np.arange(-5, 6, dtype=">i2") * 1000
        p = f.create_dataset("partial", track_times=False, shape=(6, 6), chunks=(3, 3), dtype="<u2", fillvalue=7,
                             compression="gzip", compression_opts=1)
        p[0:3, 0:3] = np.arange(9, dtype="<u2").reshape(3, 3) + 100
        p[3:6, 3:6] = np.arange(9, dtype="<u2").reshape(3, 3) + 200  # two chunks never written
        c = f.create_dataset("contiguous", track_times=False, data=np.linspace(0.0, 1.0, 24).reshape(6, 4).astype("<f8"))
        assert c.chunks is None
    return path


def make_weather():
    path = DATA / "weather.nc"
    rng = np.random.default_rng(11)
    with h5py.File(path, "w", libver="earliest") as f:
        f.attrs["Conventions"] = "CF-1.8"
        f.attrs["title"] = "NetCDF4-like file written by h5py"
        time = f.create_dataset("time", track_times=False, data=np.array([0, 6, 12, 18], dtype="<f8"))
        time.attrs["units"] = "hours since 2020-01-01 00:00:00"
        time.make_scale("time")
        lat = f.create_dataset("lat", track_times=False, data=np.linspace(50, 55, 6).astype("<f4"))
        lat.attrs["units"] = "degrees_north"
        lat.make_scale("lat")
        lon = f.create_dataset("lon", track_times=False, data=np.linspace(0, 7, 8).astype("<f4"))
        lon.attrs["units"] = "degrees_east"
        lon.make_scale("lon")
        t2m = f.create_dataset("t2m", track_times=False, shape=(4, 6, 8), chunks=(2, 3, 4), dtype="<f4", compression="gzip",
                               compression_opts=5, shuffle=False, fillvalue=np.float32(-9999.0))
        vals = (rng.standard_normal((4, 6, 8)) * 5 + 285).astype("<f4")
        vals[1, 2, 3] = -9999.0
        t2m[...] = vals
        t2m.attrs["units"] = "K"
        t2m.attrs["_FillValue"] = np.float32(-9999.0)
        t2m.attrs["long_name"] = "2 metre temperature"
        for i, d in enumerate((time, lat, lon)):
            t2m.dims[i].attach_scale(d)
    return path


def build():
    if DATA.exists():
        shutil.rmtree(DATA)
    if EXPECTED.exists():
        shutil.rmtree(EXPECTED)
    DATA.mkdir(parents=True)
    EXPECTED.mkdir(parents=True)
    cases = {"references": {}}

    # ---- simple.h5: v0 and v1 ----
    simple = make_simple()
    url = "data/simple.h5"  # relative to the reference file
    v0 = {".zgroup": json.dumps({"zarr_format": 2})}
    arrays = {}
    with h5py.File(simple, "r") as f:
        v0[".zattrs"] = json.dumps(attrs_of(f))
        for name in ("temp", "shuffled", "big", "partial"):
            d = f[name]
            refs, manifest, za = chunk_refs(d, url, name)
            v0[f"{name}/.zarray"] = json.dumps(za)
            v0[f"{name}/.zattrs"] = json.dumps({**attrs_of(d), "_ARRAY_DIMENSIONS": [f"{name}_y", f"{name}_x"][2 - d.ndim:]})
            v0.update(refs)
            arrays[name] = {"shape": list(d.shape), "dtype": d.dtype.str, "fill_value": fill_json(d),
                            "expected": write_expected(f"simple_{name}", d[...]), "chunks": manifest}
        # the contiguous dataset: one reference per row-pair, offsets from h5py's get_offset
        c = f["contiguous"]
        base = c.id.get_offset()
        row_bytes = c.shape[1] * c.dtype.itemsize
        contig_za = {"chunks": [2, 4], "compressor": None, "dtype": "<f8", "fill_value": 0.0, "filters": None,
                     "order": "C", "shape": list(c.shape), "zarr_format": 2}
        contig_manifest = {}
        raw_all = open(simple, "rb").read()
        for i in range(3):
            off = base + i * 2 * row_bytes
            contig_manifest[f"contiguous/{i}.0"] = {
                "offset": off, "size": 2 * row_bytes, "filters": [],
                "decoded_sha256": hashlib.sha256(raw_all[off:off + 2 * row_bytes]).hexdigest()}
            assert raw_all[off:off + 2 * row_bytes] == c[2 * i:2 * i + 2].tobytes()
        arrays["contiguous"] = {"shape": list(c.shape), "dtype": "<f8", "fill_value": 0.0,
                                "expected": write_expected("simple_contiguous", c[...]), "chunks": contig_manifest}
    # v0: inline base64 for one chunk of "big" (kerchunk inlines small chunks)
    big_first = "big/0"
    m = arrays["big"]["chunks"][big_first]
    raw = open(simple, "rb").read()[m["offset"]:m["offset"] + m["size"]]
    v0[big_first] = "base64:" + base64.b64encode(raw).decode()
    m["inline"] = True
    for i in range(3):
        mm = contig_manifest[f"contiguous/{i}.0"]
        v0[f"contiguous/{i}.0"] = [url, mm["offset"], mm["size"]]
    v0["contiguous/.zarray"] = json.dumps(contig_za)
    v0["contiguous/.zattrs"] = json.dumps({"_ARRAY_DIMENSIONS": ["row", "col"]})
    (HERE / "simple.v0.json").write_text(json.dumps(v0, indent=1, sort_keys=True))

    # v1: the same references, urls through a template, the contiguous chunks through gen
    refs1 = {}
    for k, v in v0.items():
        if k.startswith("contiguous/") and not k.endswith((".zarray", ".zattrs")):
            continue
        refs1[k] = ["{{u}}", v[1], v[2]] if isinstance(v, list) else v
    # one whole-file reference of a tiny file, one templated whole-file url
    (DATA / "note.txt").write_bytes(b"whole-file reference")
    refs1["extra/note"] = ["{{d}}/note.txt"]
    v1 = {
        "version": 1,
        "templates": {"u": url, "d": "data"},
        "gen": [{
            "key": "contiguous/{{i}}.0",
            "url": "{{u}}",
            "offset": "{{%d + i * %d}}" % (base, 2 * row_bytes),
            "length": "%d" % (2 * row_bytes),
            "dimensions": {"i": {"stop": 3}},
        }],
        "refs": refs1,
    }
    (HERE / "simple.v1.json").write_text(json.dumps(v1, indent=1, sort_keys=True))
    cases["references"]["simple.v0.json"] = {"format": 0, "arrays": arrays}
    cases["references"]["simple.v1.json"] = {"format": 1, "arrays": arrays,
                                             "whole_files": {"extra/note": "data/note.txt"}}

    # ---- weather.nc: v1 with a list-valued gen dimension for nothing but keys of inline values ----
    weather = make_weather()
    wurl = "{{nc}}"
    refs = {".zgroup": json.dumps({"zarr_format": 2})}
    warrays = {}
    with h5py.File(weather, "r") as f:
        refs[".zattrs"] = json.dumps(attrs_of(f))
        for name in ("time", "lat", "lon"):
            d = f[name]
            za = zarray(d, d.shape, None, None)
            refs[f"{name}/.zarray"] = json.dumps(za)
            refs[f"{name}/.zattrs"] = json.dumps({**attrs_of(d), "_ARRAY_DIMENSIONS": [name]})
            # small coordinates inlined, as kerchunk does under its inline threshold
            refs[f"{name}/0"] = "base64:" + base64.b64encode(d[...].astype(d.dtype).tobytes()).decode()
            warrays[name] = {"shape": list(d.shape), "dtype": d.dtype.str, "fill_value": fill_json(d),
                             "expected": write_expected(f"weather_{name}", d[...]), "chunks": {}}
        d = f["t2m"]
        crefs, manifest, za = chunk_refs(d, wurl, "t2m")
        refs["t2m/.zarray"] = json.dumps(za)
        refs["t2m/.zattrs"] = json.dumps({**attrs_of(d), "_ARRAY_DIMENSIONS": ["time", "lat", "lon"]})
        refs.update(crefs)
        warrays["t2m"] = {"shape": list(d.shape), "dtype": d.dtype.str, "fill_value": fill_json(d),
                          "expected": write_expected("weather_t2m", d[...]), "chunks": manifest}
    v1w = {"version": 1, "templates": {"nc": "data/weather.nc"}, "refs": refs}
    (HERE / "weather.v1.json").write_text(json.dumps(v1w, indent=1, sort_keys=True))
    cases["references"]["weather.v1.json"] = {"format": 1, "arrays": warrays}
    cases["files"] = {"data/simple.h5": hashlib.sha256(open(simple, "rb").read()).hexdigest(),
                      "data/weather.nc": hashlib.sha256(open(weather, "rb").read()).hexdigest()}
    # ---- Parquet references (the fsspec/kerchunk layout) of both files ----
    write_parquet_refs(HERE / "simple.parq", v0, record_size=4)
    write_parquet_refs(HERE / "weather.parq", {k: v for k, v in refs.items()}, record_size=3,
                       templates=v1w["templates"])
    cases["parquet"] = {"simple.parq": "simple.v0.json", "weather.parq": "weather.v1.json"}
    # a reference set pointing at an absolute local path: refused when it comes over the network
    local = {"a/.zarray": json.dumps({"chunks": [4], "compressor": None, "dtype": "|u1", "fill_value": 0,
                                      "filters": None, "order": "C", "shape": [4], "zarr_format": 2}),
             "a/0": ["/nonexistent-zaro-target/x.bin", 0, 4]}
    write_parquet_refs(HERE / "local_target.parq", local, record_size=1)
    (HERE / "manifest.json").write_text(json.dumps(cases, indent=1, sort_keys=True))


def write_parquet_refs(out, refs, record_size, templates=None):
    """The Parquet layout: .zmetadata {"metadata": {...}, "record_size": N} and, per array,
    refs.<k>.parq with columns path, offset, size, raw; chunk n (C-order ravel of its index) in
    file n // N, row n % N; rows of chunks without a reference are null (absent). Urls are
    relative to the folder holding the .parq directory, like the JSON files' urls."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if out.exists():
        shutil.rmtree(out)
    out.mkdir()

    def url_of(u):
        for k, v in (templates or {}).items():
            u = u.replace("{{" + k + "}}", v)
        return u

    metadata = {}
    arrays = {}
    for k, v in refs.items():
        name = k.rsplit("/", 1)[-1]
        if name.startswith("."):
            metadata[k] = json.loads(v)
            if name == ".zarray":
                arrays[k[: -len("/.zarray")]] = json.loads(v)
    for path, za in arrays.items():
        grid = [-(-s // c) for s, c in zip(za["shape"], za["chunks"])]
        n = int(np.prod(grid)) if grid else 1
        rows = []
        for i in range(n):
            idx = np.unravel_index(i, grid) if grid else ()
            key = f"{path}/" + (".".join(str(int(x)) for x in idx) if grid else "0")
            v = refs.get(key)
            if v is None:
                rows.append((None, 0, 0, None))
            elif isinstance(v, str):
                raw = base64.b64decode(v[7:]) if v.startswith("base64:") else v.encode()
                rows.append((None, 0, 0, raw))
            elif len(v) == 1:
                rows.append((url_of(v[0]), 0, 0, None))
            else:
                rows.append((url_of(v[0]), int(v[1]), int(v[2]), None))
        d = out / path
        d.mkdir(parents=True, exist_ok=True)
        for f in range(0, n, record_size):
            part = rows[f: f + record_size]
            table = pa.table({
                "path": pa.array([r[0] for r in part], pa.string()),
                "offset": pa.array([r[1] for r in part], pa.int64()),
                "size": pa.array([r[2] for r in part], pa.int64()),
                "raw": pa.array([r[3] for r in part], pa.binary()),
            })
            pq.write_table(table, d / f"refs.{f // record_size}.parq")
    (out / ".zmetadata").write_text(json.dumps({"metadata": metadata, "record_size": record_size}, indent=1,
                                               sort_keys=True))


if __name__ == "__main__":
    build()
