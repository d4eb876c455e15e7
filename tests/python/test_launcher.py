"""The ./zaro launcher's preparation for fast starts (README, "Start-up"): the class path it
writes once per build holds the CLI's jar first and every dependency exactly once, the jars the
commands load classes from ahead of the others; and a command's start prints nothing but its
result (no logging framework's notices)."""
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = ROOT / "zaro-cli" / "target"
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"


def run(*args):
    return subprocess.run([str(ROOT / "zaro"), *args], capture_output=True, text=True, timeout=600)


def test_class_path_holds_every_jar_once_the_used_ones_first():
    assert run("--version").returncode == 0  # builds and prepares when needed
    entries = (TARGET / "zaro.classpath").read_text().strip().split(":")
    assert pathlib.Path(entries[0]).parent == TARGET and entries[0].endswith(".jar")
    lib = sorted(str(p) for p in (TARGET / "lib").glob("*.jar"))
    assert sorted(entries[1:]) == lib
    names = [pathlib.Path(e).name for e in entries]
    index = {n.rsplit("-", 1)[0]: i for i, n in enumerate(names)}
    # picocli and zaro-arrow: every command loads from them; s3 (AWS SDK) and grpc-netty: only an
    # s3:// store or serve does
    for used in ("picocli", "zaro-arrow-0.1.0", "duckdb_jdbc"):
        for unused in ("s3", "grpc-netty"):
            assert index[used] < index[unused], (used, unused, names)


def test_sql_prints_only_its_result():
    r = run("sql", str(SAMPLE), "select 1 as one")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert r.stdout.split() == ["one", "---", "1", "(1", "row)"]
