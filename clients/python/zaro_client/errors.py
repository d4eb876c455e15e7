"""Exceptions of zaro_client: one base, one class per Flight status a zaro server sends."""
import pyarrow as pa
import pyarrow.flight as fl


class ZaroError(Exception):
    """A call to a zaro server failed. `array` names the array (or the query) it was about,
    `status` the Flight status (e.g. "NOT_FOUND"), `server_message` what the server said."""

    status = "INTERNAL"

    def __init__(self, what, server_message):
        self.array = what
        self.server_message = server_message
        super().__init__(f"{what}: {server_message}" if what else server_message)


class NotFound(ZaroError, KeyError):
    """NOT_FOUND: no such array or group."""
    status = "NOT_FOUND"

    def __str__(self):  # KeyError would quote the message
        return Exception.__str__(self)


class InvalidArgument(ZaroError, ValueError):
    """INVALID_ARGUMENT: a bad slice, command or query."""
    status = "INVALID_ARGUMENT"


class Unauthenticated(ZaroError, PermissionError):
    """UNAUTHENTICATED: no token, or one the server does not accept."""
    status = "UNAUTHENTICATED"


class ResourceExhausted(ZaroError):
    """RESOURCE_EXHAUSTED: the server's memory budget or stream slots stayed taken too long."""
    status = "RESOURCE_EXHAUSTED"


class Unavailable(ZaroError, ConnectionError):
    """UNAVAILABLE: the server cannot be reached or is shutting down."""
    status = "UNAVAILABLE"


class Unimplemented(ZaroError, NotImplementedError):
    """UNIMPLEMENTED: the server does not support this (e.g. SQL without `serve --sql`)."""
    status = "UNIMPLEMENTED"


class Internal(ZaroError):
    """INTERNAL, DATA_LOSS and anything else: the server failed (corrupt data names its chunk)."""


# pyarrow turns gRPC statuses without a Flight exception of their own into Arrow errors whose
# message starts with this text (arrow/flight/transport/grpc/util_internal.cc)
_GRPC_PREFIXES = [
    ("gRPC returned not found error", NotFound),
    ("gRPC returned invalid argument error", InvalidArgument),
    ("gRPC returned resource exhausted error", ResourceExhausted),
    ("gRPC returned unimplemented error", Unimplemented),
]
_PREFIX = ", with message: "


def _server_message(e):
    text = str(e)
    if _PREFIX in text:
        text = text.split(_PREFIX, 1)[1]
    # pyarrow appends the gRPC detail and the client's context after the message
    for tail in (". Detail: ", "\nDetail: ", ". gRPC client debug context", "\ngRPC client debug context"):
        if tail in text:
            text = text.split(tail, 1)[0]
    return text.strip()


def translate(e, what):
    """The ZaroError for a pyarrow (Flight) exception raised by a call about `what`."""
    if isinstance(e, ZaroError):
        return e
    cls = Internal
    if isinstance(e, fl.FlightUnauthenticatedError):
        cls = Unauthenticated
    elif isinstance(e, fl.FlightUnavailableError):
        cls = Unavailable
    elif isinstance(e, fl.FlightCancelledError):
        cls = Unavailable
    elif isinstance(e, (pa.ArrowKeyError, pa.ArrowInvalid, pa.ArrowNotImplementedError)):
        text = str(e)
        for prefix, c in _GRPC_PREFIXES:
            if text.startswith(prefix):
                cls = c
                break
        else:
            cls = NotFound if isinstance(e, pa.ArrowKeyError) else \
                Unimplemented if isinstance(e, pa.ArrowNotImplementedError) else InvalidArgument
    return cls(what, _server_message(e))
