"""The "zaro" xarray backend: xr.open_dataset("grpc://host:port", engine="zaro", group=...).

Variables are the group's arrays, with dimension names from `dimension_names` (v3) or
`_ARRAY_DIMENSIONS` (v2) and attributes passed through raw, so xarray's own CF decoding
(times, scale_factor/add_offset, _FillValue) applies exactly as in xr.open_zarr: for Zarr v2
the array's fill_value is the _FillValue (as xr.open_zarr does for v2), for v3 only a
_FillValue attribute is. Data stays on the server until indexed: each index fetches just that
selection. With chunks={} (or chunks=...), dask chunks follow the arrays' Zarr chunks
(encoding["preferred_chunks"]), which are also where zaro cuts its Flight endpoints.
"""
import base64
import struct
import threading

import numpy as np
import pyarrow as pa
from xarray import Variable
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.backends.common import AbstractDataStore
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing
from xarray.core.utils import FrozenDict

from . import values
from .client import Client
from .selection import format_dim

_URL_SCHEMES = ("grpc://", "grpc+tls://", "grpc+tcp://")


class ZaroBackendArray(BackendArray):
    """One served array; indexing it fetches only the selected elements. Index lists go to the
    server as they are (OUTER indexing: the server reads only the chunks holding them), and
    xarray splits vectorized indexing into an outer read and a numpy step."""

    def __init__(self, client, path, shape, dtype):
        self.client = client
        self.path = path
        self.shape = tuple(shape)
        self.dtype = dtype

    def __getitem__(self, key):
        return indexing.explicit_indexing_adapter(
            key, self.shape, indexing.IndexingSupport.OUTER, self._getitem)

    def _getitem(self, key):
        dims = []
        for k, n in zip(key, self.shape):
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                dims.append((start, step, count, False))
            elif isinstance(k, np.ndarray):
                indices = [int(i) + n if i < 0 else int(i) for i in k.reshape(-1)]
                dims.append((indices, None, len(indices), False))
            else:
                i = int(k)
                dims.append((i + n if i < 0 else i, 1, 1, True))
        if any(count == 0 for _, _, count, dropped in dims if not dropped):
            return np.empty([c for _, _, c, d in dims if not d], dtype=self.dtype)
        return self.client.read(self.path, ", ".join(format_dim(*d) for d in dims))


def _fill_value(json_value, dtype):
    """A fill value from zaro's JSON (v3 form: numbers, "NaN", "Infinity", [re, im]) as the
    numpy scalar of `dtype`, as zarr-python returns it."""
    if isinstance(json_value, str) and json_value in ("NaN", "Infinity", "-Infinity"):
        json_value = float(json_value.replace("Infinity", "inf"))
    if isinstance(json_value, list) and dtype.kind == "c":
        json_value = complex(*(float(str(v).replace("Infinity", "inf")) for v in json_value))
    if dtype.kind == "M" or dtype.kind == "m":
        return dtype.type("NaT" if json_value == "NaT" else int(json_value), np.datetime_data(dtype)[0])
    return np.array(json_value).astype(dtype)[()]


def _decode_fill_attribute(value, dtype):
    """A v3 _FillValue attribute as xarray's zarr backend decodes it (FillValueCoder.decode)."""
    if dtype.kind == "f" and isinstance(value, (str, bytes)):
        return struct.unpack("<d", base64.standard_b64decode(value))[0]
    if dtype.kind == "c" and isinstance(value, (list, tuple)) and len(value) == 2:
        real, imag = (struct.unpack("<d", base64.standard_b64decode(v))[0] for v in value)
        return complex(real, imag)
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind in "iu":
        return int(value)
    return value


def variable_attributes(path, meta, dtype, strict=True):
    """(attributes, dimension names) of an array as xarray's zarr store hands them to CF
    decoding: for Zarr v2 the dimension names come from _ARRAY_DIMENSIONS and the array's
    fill_value is the _FillValue (as xr.open_zarr does for v2); for v3 from dimension_names, and
    only a _FillValue attribute is one. strict: refuse an array without dimension names (as
    xarray does), else name them dim_0, dim_1..."""
    shape = meta["shape"]
    attributes = dict(meta.get("attributes") or {})
    if meta["zarr_format"] == 2:
        dims = attributes.pop("_ARRAY_DIMENSIONS", None)
        if (dims is None or len(dims) != len(shape)) and strict:
            raise KeyError(f"{path}: Zarr v2 array has no _ARRAY_DIMENSIONS attribute, which "
                           "xarray needs to name its dimensions")
        if meta.get("fill_value") is not None and dtype.kind not in "OUS":
            attributes["_FillValue"] = _fill_value(meta["fill_value"], dtype)
    else:
        dims = meta.get("dimension_names") or []
        if (len(dims) != len(shape) or any(d is None for d in dims)) and strict:
            raise KeyError(f"{path}: Zarr array has no dimension_names, which xarray needs to "
                           "name its dimensions")
        if "_FillValue" in attributes:
            attributes["_FillValue"] = _decode_fill_attribute(attributes["_FillValue"], dtype)
    if dims is None or len(dims) != len(shape) or any(d is None for d in dims):
        dims = [f"dim_{i}" for i in range(len(shape))]
    for k in [k for k in attributes if k.lower().startswith("_nc")]:
        del attributes[k]
    return attributes, list(dims)


def _inline_values(table, meta, dtype):
    """An inline array's values (its tensor-layout table from `describe`) as numpy."""
    shape = tuple(int(n) for n in meta["shape"])
    column = table.column(0).combine_chunks() if table.num_rows else pa.array([], table.schema.field(0).type)
    values = column.to_numpy(zero_copy_only=False)
    if dtype.kind == "c":
        values = values.reshape(-1, 2).view(dtype)
    return values.astype(dtype, copy=False).reshape(shape)


class ZaroDataStore(AbstractDataStore):
    """One group of a zaro server as an xarray data store, described in one round trip (the
    server's `describe` action: every array's metadata and the values of the small ones)."""

    def __init__(self, client, group=None, description=None):
        self.client = client
        self.group = (group or "").strip("/")
        doc, self._tables = description or client.describe(self.group)
        groups = {g["path"].strip("/"): g for g in doc["groups"]}
        if self.group not in groups:
            raise ValueError(f"{self.group or '/'} is not a group the server described")
        self._meta = groups[self.group]
        self._arrays = {a["path"].strip("/"): a for a in doc["arrays"]}

    def array_paths(self):
        return [c["path"].strip("/") for c in self._meta.get("children", []) if c["node_type"] == "array"]

    def group_paths(self):
        return [c["path"].strip("/") for c in self._meta.get("children", []) if c["node_type"] == "group"]

    def open_store_variable(self, path):
        meta = self._arrays[path]
        shape = [int(n) for n in meta["shape"]]
        table = self._tables[path]
        dtype = values.result_dtype(meta, values.value_type(table.schema.field(0))[0])
        attributes, dims = variable_attributes(path, meta, dtype)
        encoding = {}
        if "chunk_shape" in meta:
            chunks = tuple(int(c) for c in meta["chunk_shape"])
            encoding = {"chunks": chunks, "preferred_chunks": dict(zip(dims, chunks))}
        if meta.get("inline"):
            data = _inline_values(table, meta, dtype)
        else:
            data = indexing.LazilyIndexedArray(ZaroBackendArray(self.client, path, shape, dtype))
        return Variable(tuple(dims), data, attributes, encoding)

    def get_variables(self):
        return FrozenDict((p.rsplit("/", 1)[-1], self.open_store_variable(p)) for p in self.array_paths())

    def get_attrs(self):
        return {k: v for k, v in (self._meta.get("attributes") or {}).items() if not k.lower().startswith("_nc")}

    def get_dimensions(self):
        raise NotImplementedError()

    def close(self):
        pass


_CLIENTS = {}
_CLIENTS_LOCK = threading.Lock()


def _client(filename_or_obj, token, tls_root_certs, http=None):
    """The client of a URL: one per (url, token, certificates, HTTP door) for the process, so
    each open_dataset of a server reuses its gRPC channel (a new channel's set-up cost more than
    the whole description) and no dataset leaves a channel open behind it. Metadata is not cached
    across opens: each open describes the group afresh."""
    if isinstance(filename_or_obj, Client):
        if http is not None:
            raise ValueError("http= goes to zaro_client.connect(...) when a client is opened")
        return filename_or_obj
    certs = tls_root_certs if tls_root_certs is None or isinstance(tls_root_certs, (str, bytes)) \
        else str(tls_root_certs)
    key = (str(filename_or_obj), token, certs, http)
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(key)
        if client is None:
            client = _CLIENTS[key] = Client(str(filename_or_obj), token=token, tls_root_certs=tls_root_certs,
                                            http=http)
        return client


class ZaroBackendEntrypoint(BackendEntrypoint):
    """Opens groups served by `zaro serve`: xr.open_dataset("grpc://host:port", engine="zaro")."""

    description = "Zarr arrays served by zaro over Arrow Flight (grpc:// and grpc+tls:// URLs)"
    url = "https://github.com/zaro-dev/zaro#python-zaro_client-and-xarray"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "group", "token", "tls_root_certs", "http",
                               "mask_and_scale", "decode_times", "concat_characters", "decode_coords",
                               "use_cftime", "decode_timedelta")
    supports_groups = True

    def guess_can_open(self, filename_or_obj):
        return isinstance(filename_or_obj, Client) or (
            isinstance(filename_or_obj, str) and filename_or_obj.startswith(_URL_SCHEMES))

    def open_dataset(self, filename_or_obj, *, mask_and_scale=True, decode_times=True,
                     concat_characters=True, decode_coords=True, drop_variables=None,
                     use_cftime=None, decode_timedelta=None, group=None, token=None,
                     tls_root_certs=None, http=None):
        store = ZaroDataStore(_client(filename_or_obj, token, tls_root_certs, http), group)
        return StoreBackendEntrypoint().open_dataset(
            store, mask_and_scale=mask_and_scale, decode_times=decode_times,
            concat_characters=concat_characters, decode_coords=decode_coords,
            drop_variables=drop_variables, use_cftime=use_cftime, decode_timedelta=decode_timedelta)

    def open_groups_as_dict(self, filename_or_obj, *, group=None, token=None, tls_root_certs=None, http=None,
                            **decode):
        client = _client(filename_or_obj, token, tls_root_certs, http)
        root = (group or "").strip("/")
        description = client.describe(root, recursive=True)
        out = {}

        def walk(path):
            store = ZaroDataStore(client, path, description)
            ds = StoreBackendEntrypoint().open_dataset(store, **decode)
            rel = path[len(root):].strip("/") if root else path
            out["/" + rel if rel else "/"] = ds
            for child in store.group_paths():
                walk(child)

        walk(root)
        return out

    def open_datatree(self, filename_or_obj, *, group=None, token=None, tls_root_certs=None, http=None,
                      **decode):
        from xarray import DataTree

        return DataTree.from_dict(self.open_groups_as_dict(
            filename_or_obj, group=group, token=token, tls_root_certs=tls_root_certs, http=http, **decode))
