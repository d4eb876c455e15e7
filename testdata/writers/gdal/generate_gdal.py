"""Zarr v2 stores written by GDAL 3.6 (Debian's python3-gdal / gdal-bin): a georeferenced int16
raster through gdal.Translate (`gdal_translate -of Zarr`) with each compressor (blosc, lz4, zstd,
zlib), its X/Y coordinate arrays, and `gdalmdimtranslate` of a small netCDF file written with
netCDF4 (python3-netcdf4). Expected values: the writers' inputs (the numpy arrays given to GDAL and
netCDF4, saved as .npy), and X/Y as GDAL's geotransform gives them (cell centres), which GDAL's
own multidimensional reader confirms.

Run from the repository root with the system python: /usr/bin/python3 testdata/writers/gdal/generate_gdal.py
Rewrites testdata/writers/gdal/{stores,expected,cases.json}.
"""
import json
import pathlib
import shutil
import subprocess

import netCDF4
import numpy as np
from osgeo import gdal, osr

gdal.UseExceptions()
HERE = pathlib.Path(__file__).resolve().parent
GT = (10.0, 0.5, 0.0, 50.0, 0.0, -0.25)  # origin x, pixel width, -, origin y, -, pixel height


def raster():
    return ((np.arange(7 * 9).reshape(7, 9) * 37) % 1000 - 300).astype(np.int16)


def main():
    shutil.rmtree(HERE / "stores", ignore_errors=True)
    shutil.rmtree(HERE / "expected", ignore_errors=True)
    (HERE / "stores").mkdir(parents=True)
    (HERE / "expected").mkdir()
    data = raster()
    np.save(HERE / "expected" / "raster.npy", data)
    x = GT[0] + (np.arange(9) + 0.5) * GT[1]
    y = GT[3] + (np.arange(7) + 0.5) * GT[5]
    np.save(HERE / "expected" / "X.npy", x)
    np.save(HERE / "expected" / "Y.npy", y)
    cases = []
    for compress in ["BLOSC", "LZ4", "ZSTD", "ZLIB"]:
        mem = gdal.GetDriverByName("MEM").Create("", 9, 7, 1, gdal.GDT_Int16)
        mem.SetGeoTransform(GT)
        srs = osr.SpatialReference()
        srs.ImportFromEPSG(4326)
        mem.SetProjection(srs.ExportToWkt())
        band = mem.GetRasterBand(1)
        band.WriteArray(data)
        band.SetNoDataValue(-9999)
        name = f"raster_{compress.lower()}.zarr"
        out = HERE / "stores" / name
        gdal.Translate(str(out), mem, format="Zarr", creationOptions=[f"COMPRESS={compress}", "BLOCKSIZE=3,4"])
        array = "raster_" + compress.lower()
        # GDAL's own multidimensional reader agrees on the values and the coordinates
        ds = gdal.OpenEx(str(out), gdal.OF_MULTIDIM_RASTER)
        root = ds.GetRootGroup()
        assert np.array_equal(root.OpenMDArray(array).ReadAsArray(), data)
        assert np.array_equal(root.OpenMDArray("X").ReadAsArray(), x)
        assert np.array_equal(root.OpenMDArray("Y").ReadAsArray(), y)
        for path, exp in [(array, "raster.npy"), ("X", "X.npy"), ("Y", "Y.npy")]:
            cases.append({"store": f"stores/{name}", "path": path, "expected": f"expected/{exp}",
                          "what": f"gdal_translate -of Zarr -co COMPRESS={compress}"})
    # gdalmdimtranslate from netCDF (netCDF4 writes it)
    nc_path = HERE / "stores" / "input.nc"
    rng = np.random.default_rng(3)
    temp = rng.normal(280, 5, (3, 4, 5)).astype(np.float32)
    temp[1, 2, 3] = -999.0  # the _FillValue: stored as is
    count = rng.integers(-100, 100, (4, 5), dtype=np.int32)
    lat = np.linspace(-30, 30, 4)
    lon = np.linspace(0, 40, 5).astype(np.float32)
    time = np.array([0, 6, 12], dtype=np.int32)
    with netCDF4.Dataset(nc_path, "w") as nc:
        nc.createDimension("time", 3)
        nc.createDimension("lat", 4)
        nc.createDimension("lon", 5)
        v = nc.createVariable("time", "i4", ("time",))
        v.units = "hours since 2020-01-01"
        v[:] = time
        nc.createVariable("lat", "f8", ("lat",))[:] = lat
        nc.createVariable("lon", "f4", ("lon",))[:] = lon
        t = nc.createVariable("temp", "f4", ("time", "lat", "lon"), fill_value=np.float32(-999.0))
        t.set_auto_maskandscale(False)
        t[:] = temp
        nc.createVariable("count", "i4", ("lat", "lon"))[:] = count
    for name, values in [("temp", temp), ("count", count), ("lat", lat), ("lon", lon), ("time", time)]:
        np.save(HERE / "expected" / f"nc_{name}.npy", values)
    mdim = HERE / "stores" / "mdim.zarr"
    subprocess.run(["gdalmdimtranslate", "-of", "Zarr", str(nc_path), str(mdim)], check=True)
    nc_path.unlink()  # the Zarr copy is the fixture; the .npy files hold what netCDF4 was given
    for name in ["temp", "count", "lat", "lon", "time"]:
        cases.append({"store": "stores/mdim.zarr", "path": name, "expected": f"expected/nc_{name}.npy",
                      "what": "gdalmdimtranslate -of Zarr (netCDF4 input)"})
    version = gdal.__version__
    (HERE / "cases.json").write_text(json.dumps({"writer": f"GDAL {version}", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
