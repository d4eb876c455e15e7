"""Reads of numbers over a zaro server's HTTP door (`zaro serve --http-port P`), received
straight into the result.

Over Flight every message passes through gRPC's receive buffers and Flight's contiguous copy
of it before it is copied into the result: fresh memory on every read, which a machine with dear
page faults pays for (benchmarks/README.md, "Fresh pages"). Here the Arrow IPC stream is parsed
as it arrives: the small message headers into small buffers, and each batch's values read from
the socket into their place in the preallocated numpy array, with no copy between.

Only what this module can place exactly comes this way: the tensor layout of fixed-width numbers
(no booleans, which Arrow packs into bits), uncompressed, without nulls. Anything else in a
stream is refused as an Internal error naming the array, never placed approximately.
"""
import http.client
import json
import ssl
import threading
import urllib.parse

import numpy as np
import pyarrow as pa

from . import errors, values

_CONTINUATION = b"\xff\xff\xff\xff"
_SCHEMA, _RECORD_BATCH = 1, 3
_STATUS = {c.status: c for c in (errors.NotFound, errors.InvalidArgument, errors.Unauthenticated,
                                 errors.ResourceExhausted, errors.Unavailable, errors.Unimplemented)}


class HttpDoor:
    """The HTTP door of one server: keep-alive connections reused read after read. Thread-safe."""

    def __init__(self, url, token=None, pem=None):
        parts = urllib.parse.urlparse(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"http: expected http://host:port or https://host:port, got {url!r}")
        self.url = url
        self._host, self._port, self._tls = parts.hostname, parts.port, parts.scheme == "https"
        self._base = parts.path.rstrip("/")
        self._context = None
        if self._tls:
            self._context = ssl.create_default_context(cadata=pem.decode() if pem else None)
        self._headers = {"Accept": "application/vnd.apache.arrow.stream"}
        if token is not None:
            token = token.decode() if isinstance(token, bytes) else token
            self._headers["Authorization"] = "Bearer " + token.strip()
        self._idle = []
        self._lock = threading.Lock()

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for c in idle:
            c.close()

    def _connection(self, fresh=False):
        """(connection, whether it served a request before)."""
        with self._lock:
            if self._idle and not fresh:
                return self._idle.pop(), True
        if self._tls:
            return http.client.HTTPSConnection(self._host, self._port, context=self._context), False
        return http.client.HTTPConnection(self._host, self._port), False

    def _response(self, path, target):
        """The response to GET target, on an idle connection when there is one. A server may have
        closed an idle connection before this request reached it (its idle timeout): the GET,
        which changes nothing, is then sent once more on a new connection."""
        conn, used = self._connection()
        while True:
            try:
                conn.request("GET", target, headers=self._headers)
                return conn, conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                conn.close()
                if not used:
                    raise errors.Unavailable(path, f"{self.url}: {e}") from None
                conn, used = self._connection(fresh=True)
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                raise errors.Unavailable(path, f"{self.url}: {e}") from None

    def read(self, path, slice_text, meta, logical):
        """The tensor layout of `slice_text` of array `path` as a new numpy array of shape
        `logical`, for an array values.received_in_place admits."""
        query = urllib.parse.urlencode({"slice": slice_text, "layout": "tensor"})
        target = f"{self._base}/arrays/{urllib.parse.quote(path.strip('/'))}?{query}"
        conn, response = self._response(path, target)
        reusable = False
        try:
            if response.status != 200:
                raise _refusal(path, response)
            out = _Stream(response, path).read(meta, logical)
            reusable = not response.will_close
            return out
        finally:
            if reusable:
                with self._lock:
                    self._idle.append(conn)
            else:
                conn.close()


def _refusal(path, response):
    body = response.read()
    try:
        doc = json.loads(body)
        kind, message = doc.get("error", ""), doc.get("message", "")
    except ValueError:
        kind, message = "", body.decode(errors="replace").strip()
    return _STATUS.get(kind, errors.Internal)(path, message or f"HTTP {response.status}")


class _Stream:
    """One response's Arrow IPC stream, read message by message."""

    def __init__(self, response, path):
        self._r = response
        self._path = path

    def _fail(self, why):
        return errors.Internal(self._path, f"the HTTP stream {why}")

    def _into(self, view):
        got = 0
        while got < len(view):
            try:
                n = self._r.readinto(view[got:])
            except (OSError, http.client.HTTPException) as e:
                raise self._fail(f"broke off: {e}") from None
            if not n:
                raise self._fail(f"ended {len(view) - got} bytes early")
            got += n

    def _exact(self, n):
        buf = bytearray(n)
        self._into(memoryview(buf))
        return bytes(buf)

    def _skip(self, n):
        scratch = memoryview(bytearray(min(n, 1 << 16)))
        while n > 0:
            k = min(n, len(scratch))
            self._into(scratch[:k])
            n -= k

    def _message(self):
        """The next message's flatbuffer, or None at the end of the stream."""
        head = self._exact(4)
        if head == _CONTINUATION:
            head = self._exact(4)
        n = int.from_bytes(head, "little", signed=True)
        if n == 0:
            return None
        if n < 0 or n > 1 << 24:
            raise self._fail(f"announced a message header of {n} bytes")
        return self._exact(n)

    def read(self, meta, logical):
        schema = self._message()
        if schema is None or _Table.root(schema).u8(1) != _SCHEMA:
            raise self._fail("did not start with a schema")
        field = pa.ipc.read_schema(pa.py_buffer(_CONTINUATION + len(schema).to_bytes(4, "little") + schema)).field(0)
        depth, t = 1, getattr(field.type, "storage_type", field.type)
        while pa.types.is_fixed_size_list(t):  # a tensor column; complex values: pairs in one more
            depth, t = depth + 1, t.value_type
        landing = values.Landing(meta, values.value_type(field)[0], logical)
        # the caller sends only arrays values.received_in_place admits; a stream whose values
        # are something else disagrees with the array's metadata
        if landing.dtype.kind not in "iufmM":
            raise self._fail(f"holds {landing.dtype} values, which this reader does not place")
        flat = landing.flat.view(np.uint8)
        rows = landing.rows
        row_bytes = landing.row_values * landing.dtype.itemsize
        row = 0
        while True:
            header = self._message()
            if header is None:
                break
            message = _Table.root(header)
            if message.u8(1) != _RECORD_BATCH:
                raise self._fail("sent a message other than a record batch")
            body = message.i64(3)
            batch = message.table(2)
            if batch is None or batch.table(3) is not None:
                raise self._fail("sent a compressed or empty batch header")
            n = batch.i64(0)
            nodes, buffers = batch.structs(1), batch.structs(2)
            # a validity bitmap per node (all set: no nulls), then the values: one node for a
            # column of numbers, two for a tensor column (a fixed-size list of them)
            if len(nodes) != depth or len(buffers) != depth + 1:
                raise self._fail(f"sent {len(nodes)} nodes and {len(buffers)} buffers for a column of {depth}")
            if any(nulls for _, nulls in nodes):
                raise self._fail("sent nulls")
            offset, length = buffers[-1]
            need = n * row_bytes
            if row + n > rows or length < need or offset < 0 or offset + need > body:
                raise self._fail(f"sent a batch of {n} rows that does not fit the selection's {rows}")
            self._skip(offset)
            self._into(memoryview(flat)[row * row_bytes:(row + n) * row_bytes])
            self._skip(body - offset - need)
            row += n
        if row != rows:
            raise self._fail(f"sent {row} rows of the selection's {rows}")
        if self._r.read(1):
            raise self._fail("went on after its end")
        return landing.result()


class _Table:
    """A flatbuffer table: the fields an Arrow IPC message header needs (format/Message.fbs)."""

    def __init__(self, buf, pos):
        self._b = buf
        self._pos = pos
        vtable = pos - int.from_bytes(buf[pos:pos + 4], "little", signed=True)
        self._vtable = vtable
        self._vlen = int.from_bytes(buf[vtable:vtable + 2], "little")

    @staticmethod
    def root(buf):
        return _Table(buf, int.from_bytes(buf[0:4], "little"))

    def _field(self, i):
        at = 4 + 2 * i
        if at >= self._vlen:
            return None
        off = int.from_bytes(self._b[self._vtable + at:self._vtable + at + 2], "little")
        return self._pos + off if off else None

    def u8(self, i):
        p = self._field(i)
        return 0 if p is None else self._b[p]

    def i64(self, i):
        p = self._field(i)
        return 0 if p is None else int.from_bytes(self._b[p:p + 8], "little", signed=True)

    def table(self, i):
        p = self._field(i)
        return None if p is None else _Table(self._b, p + int.from_bytes(self._b[p:p + 4], "little"))

    def structs(self, i):
        """A vector of two-int64 structs (FieldNode, Buffer) as pairs."""
        p = self._field(i)
        if p is None:
            return []
        v = p + int.from_bytes(self._b[p:p + 4], "little")
        n = int.from_bytes(self._b[v:v + 4], "little")
        return [(int.from_bytes(self._b[v + 4 + 16 * k:v + 12 + 16 * k], "little", signed=True),
                 int.from_bytes(self._b[v + 12 + 16 * k:v + 20 + 16 * k], "little", signed=True))
                for k in range(n)]
