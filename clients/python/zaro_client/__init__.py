"""zaro_client: read arrays served by `zaro serve` (Arrow Flight) as numpy arrays, pyarrow tables
and, through the "zaro" xarray backend, xarray datasets.

    import zaro_client
    client = zaro_client.connect("grpc://127.0.0.1:8815")
    client.list()                           # the hierarchy
    t2m = client.read("t2m", "0:24, :, :")  # numpy.ndarray
    table = client.read_table("t2m", "0:2, 0:10, :", columns=["time", "lat", "t2m"])
    client.sql("select avg(t2m) from t2m")  # against `zaro serve STORE --sql`

    import xarray as xr
    ds = xr.open_dataset("grpc://127.0.0.1:8815", engine="zaro")
"""
from .client import Client, connect
from .errors import (Internal, InvalidArgument, NotFound, ResourceExhausted, Unauthenticated,
                     Unavailable, Unimplemented, ZaroError)

__all__ = ["connect", "Client", "ZaroError", "NotFound", "InvalidArgument", "Unauthenticated",
           "ResourceExhausted", "Unavailable", "Unimplemented", "Internal"]
__version__ = "0.1.0"
