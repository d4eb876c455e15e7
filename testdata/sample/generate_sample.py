"""Writes the bundled sample, testdata/sample/climate.zarr: a small climate-style Zarr v3
hierarchy, sharded, with inline consolidated metadata. Arrays are written by tensorstore.

  .venv/bin/python testdata/sample/generate_sample.py

- t2m: float32 (time=48, lat=73, lon=144), 2 metre temperature in K, shards (12, 74, 144)
  of zstd inner chunks (12, 37, 72)
- precip: int16 packed (scale_factor 0.01 mm, add_offset 0, _FillValue -32768) with a
  missing (fill) region, shards (24, 74, 144) of inner chunks (24, 37, 72), zstd
- time (hours since 2020-01-01), lat (90..-90), lon (0..357.5): 1-D float64 coordinates
"""
import json
import pathlib
import shutil

import numpy as np
import tensorstore as ts

HERE = pathlib.Path(__file__).resolve().parent
STORE = HERE / "climate.zarr"
BYTES = {"name": "bytes", "configuration": {"endian": "little"}}
ZSTD = {"name": "zstd", "configuration": {"level": 5, "checksum": False}}


def sharded(inner):
    return [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": inner, "codecs": [BYTES, ZSTD],
        "index_codecs": [BYTES, {"name": "crc32c"}], "index_location": "end"}}]


def write(path, data, chunks, codecs, dims, attrs, fill):
    t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(STORE / path)},
                 "metadata": {"shape": list(data.shape), "data_type": str(data.dtype),
                              "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                              "codecs": codecs, "fill_value": fill, "dimension_names": dims,
                              "attributes": attrs}},
                create=True, delete_existing=True).result()
    t.write(data).result()


def main():
    shutil.rmtree(STORE, ignore_errors=True)
    STORE.mkdir(parents=True)
    nt, nlat, nlon = 48, 73, 144
    time = np.arange(nt, dtype=np.float64) * 6.0
    lat = np.linspace(90, -90, nlat)
    lon = np.arange(nlon, dtype=np.float64) * 2.5
    rng = np.random.default_rng(2020)
    tt, la, lo = np.meshgrid(time, np.deg2rad(lat), np.deg2rad(lon), indexing="ij")
    t2m = (288.0 - 30.0 * np.sin(la) ** 2 + 8.0 * np.cos(2 * np.pi * tt / 24.0 + lo) * np.cos(la)
           + 3.0 * np.sin(2 * np.pi * tt / (24.0 * 12)) + rng.normal(0, 0.3, tt.shape)).astype(np.float32)
    precip_mm = np.clip(rng.gamma(0.6, 2.0, tt.shape) * (np.cos(la) + 0.2), 0, 300)
    precip = np.round(precip_mm / 0.01).astype(np.int16)
    precip[30:, 60:, :40] = -32768   # a missing region (fill value, left unwritten)

    write("t2m", t2m, [12, 74, 144], sharded([12, 37, 72]), ["time", "lat", "lon"],
          {"units": "K", "long_name": "2 metre temperature", "standard_name": "air_temperature"}, "NaN")
    write("precip", precip, [24, 74, 144], sharded([24, 37, 72]), ["time", "lat", "lon"],
          {"units": "mm", "long_name": "6-hourly precipitation", "scale_factor": 0.01, "add_offset": 0.0,
           "_FillValue": -32768}, -32768)
    write("time", time, [nt], [BYTES, ZSTD], ["time"],
          {"units": "hours since 2020-01-01 00:00:00", "calendar": "standard", "standard_name": "time",
           "axis": "T"}, 0.0)
    write("lat", lat, [nlat], [BYTES, ZSTD], ["lat"],
          {"units": "degrees_north", "standard_name": "latitude", "axis": "Y"}, 0.0)
    write("lon", lon, [nlon], [BYTES, ZSTD], ["lon"],
          {"units": "degrees_east", "standard_name": "longitude", "axis": "X"}, 0.0)

    consolidated = {}
    for name in ["lat", "lon", "precip", "t2m", "time"]:
        consolidated[name] = json.loads((STORE / name / "zarr.json").read_text())
    root = {"zarr_format": 3, "node_type": "group",
            "attributes": {"title": "zaro sample: synthetic 2-metre temperature and precipitation",
                           "Conventions": "CF-1.8", "source": "testdata/sample/generate_sample.py (tensorstore)",
                           "history": "synthetic; smooth fields plus seeded noise"},
            "consolidated_metadata": {"kind": "inline", "must_understand": False, "metadata": consolidated}}
    (STORE / "zarr.json").write_text(json.dumps(root, indent=2) + "\n")


if __name__ == "__main__":
    main()
