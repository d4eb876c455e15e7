"""Writes contiguous.zarr: float32 [24, 16, 8] (zstd) with chunks [6, 16, 8], which span the
trailing dimensions, so a chunk's decoded bytes are one contiguous C-order run of the array.
Written by tensorstore; expected/contiguous.bin holds numpy's little-endian bytes of the values.
Run with the .venv python (tensorstore, numpy) from this directory."""
import shutil
from pathlib import Path

import numpy as np
import tensorstore as ts

here = Path(__file__).parent
store = here / "stores" / "contiguous.zarr"
shutil.rmtree(store, ignore_errors=True)
values = np.random.default_rng(22).standard_normal((24, 16, 8)).astype("<f4")
t = ts.open(
    {
        "driver": "zarr3",
        "kvstore": {"driver": "file", "path": str(store)},
        "metadata": {
            "shape": list(values.shape),
            "data_type": "float32",
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [6, 16, 8]}},
            "codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                       {"name": "zstd", "configuration": {"level": 3}}],
        },
        "create": True,
    }
).result()
t.write(values).result()
(here / "expected").mkdir(exist_ok=True)
(here / "expected" / "contiguous.bin").write_bytes(values.tobytes())
