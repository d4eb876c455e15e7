"""Zarr stores written by netCDF-C 4.9 (Debian's netcdf-bin): `nccopy` of a small netCDF-4 file
(written with netCDF4, python3-netcdf4) to pure Zarr (`#mode=zarr,file`) and to NCZarr
(`#mode=nczarr,file`). (`-d 1` and `-c` change nothing in these Zarr copies with Debian's build:
its Zarr filters need HDF5 filter plugins Debian does not ship.) Expected values: the numpy arrays given to
netCDF4, saved as .npy.

Run from the repository root with the system python: /usr/bin/python3 testdata/writers/netcdf/generate_netcdf.py
Rewrites testdata/writers/netcdf/{stores,expected,cases.json}.
"""
import json
import pathlib
import shutil
import subprocess

import netCDF4
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "stores").mkdir(parents=True)
    (HERE / "expected").mkdir()
    rng = np.random.default_rng(8)
    values = {
        "precip": rng.gamma(1.0, 2.0, (4, 6, 7)).astype(np.float32),
        "level": rng.integers(-32000, 32000, (6, 7), dtype=np.int16),
        "flag": rng.integers(0, 255, (4,), dtype=np.uint8),
        "depth": np.linspace(0.5, 2.5, 6),
        "station": np.arange(7, dtype=np.int64) * 1000 + 17,
        "time": np.array([0.0, 1.5, 3.0, 4.5]),
    }
    dims = {"precip": ("time", "depth", "station"), "level": ("depth", "station"), "flag": ("time",),
            "depth": ("depth",), "station": ("station",), "time": ("time",)}
    src = HERE / "stores" / "input.nc"
    with netCDF4.Dataset(src, "w", format="NETCDF4") as nc:
        for d, n in [("time", 4), ("depth", 6), ("station", 7)]:
            nc.createDimension(d, n)
        for name, v in values.items():
            var = nc.createVariable(name, v.dtype, dims[name], chunksizes=None)
            var.set_auto_maskandscale(False)
            var[:] = v
    for name, v in values.items():
        np.save(HERE / "expected" / f"{name}.npy", v)
    version = subprocess.run(["ncdump"], capture_output=True, text=True).stderr.strip().splitlines()[-1]
    cases = []
    for mode in ["zarr", "nczarr"]:
        name = f"{mode}.zarr"
        out = HERE / "stores" / name
        subprocess.run(["nccopy", str(src), f"file://{out}#mode={mode},file"], check=True)
        for var in values:
            cases.append({"store": f"stores/{name}", "path": var, "expected": f"expected/{var}.npy",
                          "what": f"nccopy input.nc to {name} (#mode={mode},file)"})
    src.unlink()
    (HERE / "cases.json").write_text(json.dumps({"writer": version, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
