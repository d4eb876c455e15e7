"""Writes contiguous.zarr: float32 [24, 16, 8] (zstd) with chunks [6, 16, 8], which span the
trailing dimensions, so a chunk's decoded bytes are one contiguous C-order run of the array.
Also tiled.zarr: the same values in chunks [6, 8, 4], which do not span them (a chunk is copied
into a stream's blocks, never sent by reference).
Written by tensorstore; expected/contiguous.bin holds numpy's little-endian bytes of the values.
Run with the .venv python (tensorstore, numpy) from this directory."""
import shutil
from pathlib import Path

import numpy as np
import tensorstore as ts

here = Path(__file__).parent
values = np.random.default_rng(22).standard_normal((24, 16, 8)).astype("<f4")
for name, chunks in [("contiguous.zarr", [6, 16, 8]), ("tiled.zarr", [6, 8, 4])]:
    store = here / "stores" / name
    shutil.rmtree(store, ignore_errors=True)
    t = ts.open(
        {
            "driver": "zarr3",
            "kvstore": {"driver": "file", "path": str(store)},
            "metadata": {
                "shape": list(values.shape),
                "data_type": "float32",
                "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunks}},
                "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                           {"name": "zstd", "configuration": {"level": 3}}],
            },
            "create": True,
        }
    ).result()
    t.write(values).result()
(here / "expected").mkdir(exist_ok=True)
(here / "expected" / "contiguous.bin").write_bytes(values.tobytes())
