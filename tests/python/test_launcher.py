"""The ./zaro launcher's preparation for fast starts (README, "Start-up"): the class path it
writes once per build holds the CLI's jar first and every dependency exactly once, the jars the
commands load classes from ahead of the others; a command's start prints nothing but its
result (no logging framework's notices); and, where the JDK has jlink, commands run on a runtime
image of it without the Flight Recorder (the whole JDK when ZARO_JAVA_OPTS names the recorder)."""
import os
import pathlib
import shutil
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


def java_home(opts):
    r = subprocess.run([str(ROOT / "zaro"), "--version"], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "ZARO_JAVA_OPTS": opts})
    assert r.returncode == 0, r.stderr
    return next(line.split("=", 1)[1].strip() for line in r.stderr.splitlines()
                if line.strip().startswith("java.home ="))


def test_runs_on_a_jdk_image_without_the_flight_recorder():
    assert run("--version").returncode == 0  # builds and prepares when needed
    jre = TARGET / "jre"
    jdk = pathlib.Path(shutil.which("java")).resolve().parent
    if not (jdk / "jlink").exists():
        assert not jre.exists()  # no jlink: the java on the PATH
        return
    modules = subprocess.run([str(jre / "bin" / "java"), "--list-modules"], capture_output=True,
                             text=True, check=True).stdout.split()
    names = {m.split("@")[0] for m in modules}
    assert "java.base" in names and "java.sql" in names and "jdk.crypto.ec" in names
    assert "jdk.jfr" not in names and "jdk.management.jfr" not in names
    assert pathlib.Path(java_home("-XshowSettings:properties")) == jre
    # asking for the Flight Recorder: the whole JDK
    assert pathlib.Path(java_home("-XshowSettings:properties -Dzaro.test=jfr")) != jre
    r = run("sql", str(SAMPLE), "select count(*) as n from t2m")
    assert r.returncode == 0 and r.stderr == "", r.stderr
