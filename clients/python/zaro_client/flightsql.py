"""The one Flight SQL message the client sends, encoded by hand (no protobuf dependency).

A Flight SQL query is a FlightDescriptor command holding a google.protobuf.Any whose value is an
arrow.flight.protocol.sql.CommandStatementQuery { string query = 1; bytes transaction_id = 2; }
(format/FlightSql.proto in the Arrow repository)."""

_TYPE_URL = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _field(number, payload):
    """A length-delimited field (wire type 2): strings, bytes and embedded messages."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def statement_query(query):
    """The command bytes of a Flight SQL CommandStatementQuery for `query`, packed in an Any."""
    command = _field(1, query.encode("utf-8"))
    return _field(1, _TYPE_URL) + _field(2, command)
