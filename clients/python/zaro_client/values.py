"""How a served array's values land in numpy, for every way a read arrives (Flight streams,
the HTTP door, shared memory): the dtype zarr-python gives them, which data types can be
received straight into a preallocated array, and the result's layout.

The tensor layout sends one row per index of the result's first dimension (one row for a
single element), each row holding the rest of the result in C order; complex values come as
real, imaginary pairs of floats.
"""
import numpy as np
import pyarrow as pa

# data types whose values are not fixed-width numbers in numpy's layout
_NOT_FIXED_WIDTH = ("string", "bytes", "fixed_length_utf32", "null_terminated_bytes")


def fixed_width(meta):
    """Whether the array's values are fixed-width numbers in numpy's layout (booleans too), so
    that a server can write them into a file this client maps (shared memory)."""
    return meta["data_type"] not in _NOT_FIXED_WIDTH


def received_in_place(meta):
    """Whether an Arrow stream's value buffers of this array are its numpy values byte for byte,
    so that they can be received straight into the result: fixed-width numbers except booleans,
    which Arrow packs into bits."""
    return fixed_width(meta) and meta["data_type"] != "bool"


def numpy_dtype(arrow_type):
    """The numpy dtype an Arrow value type reads as (strings and binaries as objects)."""
    if pa.types.is_timestamp(arrow_type):
        return np.dtype(f"datetime64[{arrow_type.unit}]")
    if pa.types.is_duration(arrow_type):
        return np.dtype(f"timedelta64[{arrow_type.unit}]")
    if pa.types.is_date32(arrow_type) or pa.types.is_date64(arrow_type):
        return np.dtype("datetime64[D]" if pa.types.is_date32(arrow_type) else "datetime64[ms]")
    if pa.types.is_boolean(arrow_type):
        return np.dtype(bool)
    if pa.types.is_integer(arrow_type) or pa.types.is_floating(arrow_type):
        return np.dtype(arrow_type.to_pandas_dtype())
    return np.dtype(object)


def result_dtype(meta, arrow_type):
    """The numpy dtype of an array's values as zarr-python gives them: fixed-width strings with
    numpy's fixed-width dtypes (<U, S), variable-length ones as objects, complex as complex."""
    data_type = meta["data_type"]
    if data_type == "fixed_length_utf32":
        return np.dtype(f"<U{max(1, int(meta['length_bytes']) // 4)}")
    if data_type == "null_terminated_bytes":
        return np.dtype(f"S{max(1, int(meta['length_bytes']))}")
    dtype = numpy_dtype(arrow_type)
    if data_type.startswith("complex"):
        return np.dtype(np.complex64 if dtype == np.float32 else np.complex128)
    return dtype


def value_type(field):
    """The element type and per-row shape of a tensor-layout column."""
    t = field.type
    if isinstance(t, pa.FixedShapeTensorType):
        return t.value_type, tuple(t.shape)
    return t, ()


def rows(meta, logical):
    """(rows, values per row) of the tensor layout of a result of shape `logical`; a complex
    value counts as two (its real and imaginary parts)."""
    complex_ = meta["data_type"].startswith("complex")
    per_row = int(np.prod(logical[1:], dtype=np.int64)) * (2 if complex_ else 1)
    return (logical[0] if logical else 1), per_row


class Landing:
    """The result of one read, allocated once, that rows are written into in place: `flat` is
    the values in the tensor layout's order (complex: float pairs), `result()` the array of
    shape `logical` that zarr-python would give."""

    def __init__(self, meta, arrow_type, logical):
        dtype = result_dtype(meta, arrow_type)
        self._complex = dtype.kind == "c"
        if self._complex:
            dtype = np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        self._out = np.empty(tuple(logical) + ((2,) if self._complex else ()), dtype=dtype)
        self.flat = self._out.reshape(-1)  # a view: the array is C-contiguous
        self.rows, self.row_values = rows(meta, tuple(logical))

    @property
    def dtype(self):
        """The dtype of `flat` (complex values: of their parts)."""
        return self._out.dtype

    def result(self):
        if self._complex:
            return self._out.view(np.complex64 if self._out.dtype == np.float32 else np.complex128)[..., 0]
        return self._out
