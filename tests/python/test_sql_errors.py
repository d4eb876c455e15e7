"""SQL errors keep DuckDB's own message on every surface: `zaro sql`, its shell on standard input,
the Flight SQL service (pyarrow's Flight client through zaro_client.sql, which reads the status
message). The expected first line of each message is what DuckDB's Python package says for the
same statement (queries over the sample's tables: a pattern, as the failing value depends on the
scan's order)."""
import re
import subprocess

import duckdb
import pytest

import zaro_client
from zaro_server import ROOT, ZARO, Server

SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"

# the statement zaro runs, and the statement DuckDB runs alone for the expected message (None:
# a pattern instead)
CASES = [
    ("select * from t2m where time < timestamp '2020-13-45'", "select timestamp '2020-13-45'"),
    ("select cast('abc' as integer) as n from lat", "select cast('abc' as integer)"),
    ("select error('boom')", "select error('boom')"),
    ("select cast(t2m::varchar || 'x' as int) from t2m", None),
]
PER_ROW = r"Conversion Error: Could not convert string '[0-9.]+x' to INT32"


def first_line(text):
    return text.strip().splitlines()[0]


def expected(alone):
    with pytest.raises(duckdb.Error) as e:
        duckdb.sql(alone).fetchall()
    return re.escape(first_line(str(e.value)))


@pytest.mark.parametrize("query,alone", CASES)
def test_zaro_sql_prints_duckdbs_message(query, alone):
    r = subprocess.run([ZARO, "sql", str(SAMPLE), query], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    # (the line after a first run's build messages)
    assert re.search(r"(?m)^zaro: error: sql: " + (expected(alone) if alone else PER_ROW), r.stderr), r.stderr
    assert "Invalid result set" not in r.stderr and "Exception" not in r.stderr


def test_the_shell_prints_duckdbs_message_and_goes_on():
    text = "".join(q + ";\n" for q, _ in CASES) + ".mode csv\nselect 1 as one;\n"
    r = subprocess.run([ZARO, "sql", str(SAMPLE)], input=text, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert r.stdout == "one\n1\n"
    errors = [line for line in r.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == len(CASES), r.stderr
    for line, (_, alone) in zip(errors, CASES):
        assert re.match(r"Error: " + (expected(alone) if alone else PER_ROW), line), line


@pytest.fixture(scope="module")
def server():
    with Server(SAMPLE, "--sql") as s:
        yield s


@pytest.mark.parametrize("query,alone", CASES)
def test_flight_sql_status_carries_duckdbs_message(server, query, alone):
    with zaro_client.connect(server.uri) as client:
        with pytest.raises(zaro_client.InvalidArgument) as e:
            client.sql(query)
    message = e.value.server_message
    assert re.match(r"sql: " + (expected(alone) if alone else PER_ROW), message), message
    assert "Invalid result set" not in message


def test_flight_sql_sends_cf_times_as_utc_instants(server):
    """Flight SQL sends timestamps in UTC (for the JDBC driver's sake: FlightSqlTimeZoneTest), the
    same instants DuckDB gives for the CF time (hours since 2020-01-01, by the sample's units)."""
    with zaro_client.connect(server.uri) as client:
        got = client.sql("select time from t2m where lat = 90 and lon = 0 order by time")
    assert str(got.schema.field("time").type) == "timestamp[us, tz=UTC]"
    hours = [int(t.timestamp() // 3600) for t in got.column("time").to_pylist()]
    start = 1577836800 // 3600  # 2020-01-01T00:00Z
    assert hours == [start + 6 * i for i in range(48)]
