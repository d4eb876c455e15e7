"""The client of `zaro serve`: arrays as numpy, tables as pyarrow, SQL through Flight SQL."""
import json
import mmap
import os
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
import pyarrow.flight as fl

from . import errors
from . import values
from .http_reads import HttpDoor
from .selection import Selection


def connect(url, token=None, tls_root_certs=None, threads=4, shared_memory=None, http=None):
    """A client of the zaro server at `url` ("grpc://host:port" or "grpc+tls://host:port").

    token: the bearer token (str or bytes) the server's --auth-token-file accepts, sent as
    `authorization: Bearer <token>` on every call. tls_root_certs: the PEM certificates (bytes,
    or the path of a file) that sign the server's certificate, for grpc+tls:// with a private CA.
    threads: how many endpoints of one read are fetched at once. shared_memory: whether reads
    (of numbers, up to `direct_bytes`) are handed over in a shared-memory file when the server is
    on this machine; None (the default) tries it for a loopback URL, for reads of at least
    `shared_min_bytes` (512 KiB), and a read falls back to do_get when the file cannot be used.
    http: the server's HTTP door ("http://host:port" or "https://...", `zaro serve --http-port`,
    as this client reaches it): reads of numbers (of at least `http_min_bytes`, 0 by default) that
    do not come through shared memory come through it instead of Flight, received straight into
    the result (same token and certificates)."""
    return Client(url, token=token, tls_root_certs=tls_root_certs, threads=threads,
                  shared_memory=shared_memory, http=http)


def _pem(certs):
    if certs is None or isinstance(certs, bytes):
        return certs
    if isinstance(certs, str) and certs.lstrip().startswith("-----BEGIN"):
        return certs.encode()
    with open(os.fspath(certs), "rb") as f:
        return f.read()


def _is_loopback(url):
    """Whether url names a server on this machine (a loopback address or localhost)."""
    host = urllib.parse.urlparse(url).hostname or ""
    return host == "localhost" or host == "::1" or host.startswith("127.")


class Client:
    """A connection to one zaro server; thread-safe. Use `connect(...)` to make one.

    Errors raise `zaro_client.ZaroError` subclasses (NotFound, InvalidArgument, Unauthenticated,
    ResourceExhausted, Unavailable, Unimplemented, Internal) naming the array."""

    def __init__(self, url, token=None, tls_root_certs=None, threads=4, shared_memory=None, http=None):
        self.url = url
        kwargs = {}
        pem = _pem(tls_root_certs)
        if pem is not None:
            kwargs["tls_root_certs"] = pem
        self._flight = fl.connect(url, **kwargs)
        headers = []
        if token is not None:
            token = token.encode() if isinstance(token, str) else token
            headers.append((b"authorization", b"Bearer " + token.strip()))
        self._options = fl.FlightCallOptions(headers=headers)
        self._threads = max(1, int(threads))
        # the fetch threads live as long as the client: a pool made per read started new threads
        # every time, and each new thread's first buffers were fresh pages the kernel had to
        # fault in and zero (benchmarks/README.md, "Fresh pages")
        self._pool = None
        self._pool_lock = threading.Lock()
        self._meta = {}
        # reads up to this many bytes go as one do_get, without asking for endpoints first
        self.direct_bytes = 256 << 20
        # a read over the wire of at least twice this many bytes goes as parallel streams
        self.part_bytes = 8 << 20
        # a server on this machine hands such reads over in a shared-memory file (do_exchange),
        # from this many bytes: below it the exchange's extra messages cost more than the copy
        # through the socket saves (benchmarks/README.md, "xarray open_zarr")
        self.shared_memory = _is_loopback(url) if shared_memory is None else bool(shared_memory)
        self.shared_min_bytes = 512 << 10
        # reads of numbers from this many bytes come through the HTTP door, when given: all of
        # them, as a small read was faster through it too (30 KB: 2.5-3.5 ms against 4.2-5.0 over
        # Flight on this machine, 24-25 against 26-27 ms at 20 ms round trips)
        self._http = HttpDoor(http, token, pem) if http else None
        self.http_min_bytes = 0

    def close(self):
        if self._http is not None:
            self._http.close()
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown()
        self._flight.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- hierarchy -------------------------------------------------------------------------

    def _action(self, name, body, what):
        try:
            results = list(self._flight.do_action(fl.Action(name, body), self._options))
        except Exception as e:  # noqa: BLE001 - every Flight failure becomes a ZaroError
            raise errors.translate(e, what) from None
        return json.loads(results[0].body.to_pybytes())

    def describe(self, group="", recursive=False, inline_bytes=None):
        """A group in one round trip (the server's `describe` action): (doc, tables) where doc
        has the group's metadata under "groups" (every group below it too with recursive=True)
        and every array's under "arrays", and tables maps each array's path to its tensor-layout
        pyarrow.Table: its schema (field metadata `zarr.attributes`), and its values for arrays
        marked "inline" (1-D arrays up to inline_bytes, 4 MiB unless given). The metadata of
        every node described is kept, so `info` asks the server nothing more for them."""
        body = {"group": group.strip("/"), "recursive": bool(recursive)}
        if inline_bytes is not None:
            body["inline_bytes"] = int(inline_bytes)
        try:
            results = list(self._flight.do_action(fl.Action("describe", json.dumps(body).encode()),
                                                  self._options))
        except Exception as e:  # noqa: BLE001 - every Flight failure becomes a ZaroError
            raise errors.translate(e, group or "/") from None
        doc = json.loads(results[0].body.to_pybytes())
        if len(results) != len(doc["arrays"]) + 1:
            raise errors.Internal(group or "/", f"describe sent {len(results) - 1} streams for "
                                                f"{len(doc['arrays'])} arrays")
        tables = {}
        for meta, result in zip(doc["arrays"], results[1:]):
            key = meta["path"].strip("/")
            tables[key] = pa.ipc.open_stream(result.body).read_all()
            self._meta[key] = meta
        for meta in doc["groups"]:
            self._meta[meta["path"].strip("/")] = meta
        return doc, tables

    def info(self, path=""):
        """The node's normalized metadata (as `zaro info` prints it): for an array its shape,
        data_type, chunk_shape, fill_value, codecs, dimension_names and attributes; for a group
        its attributes and children."""
        key = path.strip("/")
        if key not in self._meta:
            self._meta[key] = self._action("metadata", key.encode(), path or "/")
        return self._meta[key]

    def list(self):
        """Every node of the hierarchy, depth first: dicts with path, node_type, and for arrays
        shape and data_type (as `zaro ls`)."""
        out = []

        def walk(path):
            meta = self.info(path)
            node = {"path": meta["path"], "node_type": meta["node_type"]}
            if meta["node_type"] == "array":
                node["shape"] = meta["shape"]
                node["data_type"] = meta["data_type"]
            out.append(node)
            for child in meta.get("children", []):
                walk(child["path"])

        walk("")
        return out

    # ---- reads -----------------------------------------------------------------------------

    def _flight_info(self, command, what):
        """get_flight_info for a command: zaro's JSON one (a dict) or Flight SQL's (bytes)."""
        if isinstance(command, dict):
            command = json.dumps(command).encode()
        try:
            return self._flight.get_flight_info(fl.FlightDescriptor.for_command(command), self._options)
        except Exception as e:  # noqa: BLE001
            raise errors.translate(e, what) from None

    def _fetch(self, endpoints, what, each):
        """Runs each(index, reader) for every endpoint, on up to `threads` threads at once;
        returns the results in endpoint order."""
        return self._fetch_tickets([e.ticket for e in endpoints], what, each)

    def _fetch_tickets(self, tickets, what, each):
        """Runs each(index, reader) for every ticket's do_get, as _fetch does for endpoints."""

        def one(i):
            try:
                reader = self._flight.do_get(tickets[i], self._options)
                return each(i, reader)
            except errors.ZaroError:
                raise
            except Exception as e:  # noqa: BLE001
                raise errors.translate(e, what) from None

        if len(tickets) <= 1 or self._threads == 1:
            return [one(i) for i in range(len(tickets))]
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="zaro-fetch")
            pool = self._pool
        return list(pool.map(one, range(len(tickets))))

    def read(self, path, slice=None, decode=False):
        """The selection `slice` of array `path` as a numpy array.

        slice is written as on zaro's command line: numpy-style per dimension, comma separated
        (`start:stop`, `:`, `start:stop:step`, an integer that drops the dimension, `...`, or an
        index list `[0,90,180]` with numpy's outer meaning, as np.ix_), e.g. "0:24, :, :"; None
        reads everything. Values are the stored ones (raw: packed integers, fill values, time
        counts), in the dtype zarr-python gives (fixed-width strings as <U/S, variable-length
        ones as objects, complex as complex). decode=True applies the array's CF attributes as
        xarray does (mask and scale, times), through xarray's own decoder.

        A read of up to `direct_bytes` is one stream; a larger one is split by the server into
        endpoints along chunk boundaries, fetched in parallel. The result is allocated once and
        each batch is copied straight into its place."""
        meta = self.info(path)
        shape = [int(n) for n in meta["shape"]]
        slice_text = slice or ""
        selection = Selection.parse(slice_text, shape)
        logical = tuple(selection.result_shape())
        command = {"array": path, "slice": slice_text, "layout": "tensor"}
        item = int(meta.get("length_bytes") or 0) or 8
        nbytes = int(np.prod(logical, dtype=np.int64)) * item
        if nbytes <= self.direct_bytes:
            if self.shared_memory and nbytes >= self.shared_min_bytes \
                    and values.fixed_width(meta):
                out = self._read_shared(path, meta, logical, command)
                if out is not None:
                    return self._decode(path, meta, selection, out) if decode else out
            if self._http is not None and nbytes >= self.http_min_bytes \
                    and values.received_in_place(meta):
                out = self._http.read(path, slice_text, meta, logical)
                return self._decode(path, meta, selection, out) if decode else out
            parts = self._row_parts(selection, meta, item)
            tickets = [fl.Ticket(json.dumps(dict(command, slice=p)).encode()) for p in parts] \
                if parts else [fl.Ticket(json.dumps(command).encode())]
            schema = None
        else:
            info = self._flight_info(command, path)
            tickets = [e.ticket for e in info.endpoints]
            schema = info.schema
        out = self._read_into(path, meta, shape, selection, tickets, schema)
        return self._decode(path, meta, selection, out) if decode else out

    def _row_parts(self, selection, meta, item):
        """The selection cut along its first dimension at chunk boundaries into up to `threads`
        parts of about `part_bytes` or more, as slice texts; None to keep it one stream. The parts
        go as parallel streams on the one connection, each read and sent by the server in a
        pipeline of its own. Four by default: 62 MB at 20 ms round trips took 194-234 ms on four
        streams against 243-244 on eight (100 ms: 226 against 298), as each stream's messages are
        fresh memory for the client (benchmarks/README.md, "Fresh pages")."""
        if not selection.dims:
            return None
        start, step, count, dropped = selection.dims[0]
        chunk = (meta.get("chunk_shape") or [None])[0]
        if step != 1 or dropped or not isinstance(chunk, int) or chunk < 1:
            return None
        row_bytes = int(np.prod(selection.result_shape()[1:], dtype=np.int64)) * item
        n = min(self._threads, count * row_bytes // self.part_bytes)
        edges = list(range((start // chunk + 1) * chunk, start + count, chunk))
        if n < 2 or not edges:
            return None
        cuts = sorted({min(edges, key=lambda e: abs(e - (start + count * k / n))) for k in range(1, n)})
        bounds = [start] + cuts + [start + count]
        return [Selection([(a, 1, b - a, False)] + selection.dims[1:]).text()
                for a, b in zip(bounds, bounds[1:])]

    def _read_shared(self, path, meta, logical, command):
        """The read through a shared-memory file (the server's do_exchange): the server offers a
        file it made readable by its own user, this client opens it, the server unlinks it and
        writes the values into it in C order, and the client maps it (copy-on-write, so the
        array is writable). None when the server declines or the file cannot be opened (another
        user, another machine): the caller reads with do_get then."""
        descriptor = fl.FlightDescriptor.for_command(json.dumps(command).encode())
        fd = None
        try:
            writer, reader = self._flight.do_exchange(descriptor, self._options)
            with writer:
                offer = json.loads(reader.read_chunk().app_metadata.to_pybytes())
                name = offer.get("shared_memory")
                dtype = values.result_dtype(meta, values.value_type(reader.schema.field(0))[0])
                if name and dtype.kind in "biufcmM" and dtype.itemsize == offer["element_bytes"] \
                        and os.path.basename(name).startswith("zaro-"):
                    try:
                        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
                    except OSError:
                        fd = None
                writer.write_metadata(json.dumps({"opened": fd is not None}).encode())
                writer.done_writing()
                for _ in reader:  # the end of the exchange: the file is full, or an error
                    pass
            if fd is None:
                return None
            size = int(offer["bytes"])
            if os.fstat(fd).st_size != size:
                raise errors.Internal(path, f"the shared-memory file holds {os.fstat(fd).st_size} "
                                            f"bytes, the read {size}")
            if size == 0:
                return np.empty(logical, dtype=dtype)
            mapped = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
            return np.frombuffer(mapped, dtype=dtype).reshape(logical)
        except errors.ZaroError:
            raise
        except Exception as e:  # noqa: BLE001 - every Flight failure becomes a ZaroError
            raise errors.translate(e, path) from None
        finally:
            if fd is not None:
                os.close(fd)

    def _read_into(self, path, meta, shape, selection, tickets, schema):
        """Fetches the tickets' streams into one preallocated array of the selection's shape."""
        what = path
        logical = tuple(selection.result_shape())
        rows, row_values = values.rows(meta, logical)
        starts = [0]
        for t in tickets[:-1]:
            starts.append(starts[-1] + self._rows(t, shape))
        expected_ends = starts[1:] + [rows]
        if len(tickets) == 0 or expected_ends[-1] - starts[-1] < 0:
            raise errors.Internal(what, f"the endpoints' parts do not add up to the selection's {rows} rows")
        box = {}
        lock = threading.Lock()

        def allocate(field):
            # the first stream's schema names the value type (a read without get_flight_info)
            with lock:
                if "landing" not in box:
                    box["landing"] = values.Landing(meta, values.value_type(field)[0], logical)
                return box["landing"].flat

        if schema is not None:
            allocate(schema.field(0))

        def place(i, reader):
            row = starts[i]
            flat = None
            for chunk in reader:
                if flat is None:
                    flat = allocate(chunk.data.schema.field(0))
                column = chunk.data.column(0)
                n = len(column)
                if isinstance(column.type, (pa.FixedShapeTensorType, pa.FixedSizeListType)):
                    column = column.storage.flatten() if isinstance(column.type, pa.FixedShapeTensorType) \
                        else column.flatten()
                batch = column.to_numpy(zero_copy_only=False)
                if row + n > expected_ends[i] or batch.size != n * row_values:
                    raise errors.Internal(what, f"endpoint {i} sent more rows or values than its part holds")
                flat[row * row_values:(row + n) * row_values] = batch
                row += n
            return row

        ends = self._fetch_tickets(tickets, what, place)
        # every row written exactly once: an endpoint that sent fewer rows than its part holds
        # would leave uninitialized memory in the result
        if ends != expected_ends:
            raise errors.Internal(what, f"the endpoints sent rows up to {ends}, expected {expected_ends}")
        landing = box.get("landing")
        if landing is None:  # nothing selected: no batch named the type
            landing = values.Landing(meta, pa.float64(), logical)
        return landing.result()

    def _decode(self, path, meta, selection, raw):
        """raw as xarray's CF decoding gives them (mask and scale, times)."""
        import xarray as xr

        from .xarray_backend import variable_attributes

        attrs, dims = variable_attributes(path, meta, raw.dtype, strict=False)
        kept = [d for d, (_, _, _, dropped) in zip(dims, selection.dims) if not dropped]
        variable = xr.Variable(kept, raw, attrs)
        return xr.conventions.decode_cf_variable(path.rsplit("/", 1)[-1], variable).values

    @staticmethod
    def _rows(ticket, shape):
        part = json.loads(ticket.ticket)
        return Selection.parse(part.get("slice", ""), shape).result_shape()[0]

    def read_table(self, path, slice=None, columns=None, raw=False):
        """The selection of array `path` in zaro's table layout as a pyarrow.Table: one row per
        element, a column per dimension (coordinate values when the group has them; CF times
        as timestamps) and the value column (CF packing and missing values applied unless
        raw=True). columns: the names to keep, in that order (chosen from the fetched table: the
        Flight command has no projection, so every column travels)."""
        command = {"array": path, "slice": slice or "", "layout": "table"}
        if raw:
            command["raw"] = True
        info = self._flight_info(command, path)
        tables = self._fetch(info.endpoints, path, lambda i, reader: reader.read_all())
        table = pa.concat_tables(tables) if tables else info.schema.empty_table()
        if columns is not None:
            missing = [c for c in columns if c not in table.column_names]
            if missing:
                raise errors.InvalidArgument(
                    path, f"no column {', '.join(missing)}; the table has {', '.join(table.column_names)}")
            table = table.select(list(columns))
        return table

    def sql(self, query):
        """Runs one SQL query on the server's Flight SQL service (`zaro serve STORE --sql`; every
        array is a table named by its path) and returns its result as a pyarrow.Table."""
        from .flightsql import statement_query

        try:
            info = self._flight_info(statement_query(query), query)
        except errors.InvalidArgument as e:
            if e.server_message.startswith("the command is not JSON"):
                raise errors.Unimplemented(query, "this server does not serve SQL: start it with "
                                                  "`zaro serve STORE --sql`") from None
            raise
        tables = self._fetch(info.endpoints, query, lambda i, reader: reader.read_all())
        return pa.concat_tables(tables) if tables else info.schema.empty_table()

    def stats(self):
        """The server's `stats` action: memory in use, the budget, streams, chunks decoded."""
        return self._action("stats", b"", "stats")
