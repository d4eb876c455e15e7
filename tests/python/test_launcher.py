"""The ./zaro launcher's preparation for fast starts (docs/startup.md, "Start-up"): the class path it
writes once per build is one jar of the CLI's jar and every dependency (each class as it was, every
jar's service providers); a command's start prints nothing but its
result (no logging framework's notices); and, where the JDK has jlink, commands run on a runtime
image of it without the Flight Recorder (the whole JDK when ZARO_JAVA_OPTS names the recorder)."""
import os
import pathlib
import shutil
import subprocess
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = ROOT / "zaro-cli" / "target"
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"


def run(*args):
    return subprocess.run([str(ROOT / "zaro"), *args], capture_output=True, text=True, timeout=600)


def test_class_path_is_one_jar_of_every_jar():
    assert run("--version").returncode == 0  # builds and prepares when needed
    assert (TARGET / "zaro.classpath").read_text().strip() == str(TARGET / "zaro-all.jar")
    assert not (TARGET / "zaro-all.jar.log").exists()
    jars = [next(p for p in TARGET.glob("zaro-cli-*.jar") if not p.name.endswith(("-tests.jar", "-sources.jar")))]
    jars += sorted((TARGET / "lib").glob("*.jar"))
    with zipfile.ZipFile(TARGET / "zaro-all.jar") as merged:
        names = set(merged.namelist())
        assert len(names) == len(merged.namelist())  # every entry once
        services = {}
        for jar in jars:
            with zipfile.ZipFile(jar) as z:
                for info in z.infolist():
                    n = info.filename
                    if n.startswith("META-INF/services/") and not n.endswith("/"):
                        services.setdefault(n, []).extend(
                            line.strip() for line in z.read(n).decode().splitlines()
                            if line.strip() and not line.startswith("#"))
                    elif n.endswith(".class") and not n.endswith("module-info.class") \
                            and not n.startswith("META-INF/versions/"):
                        # each jar's classes, byte for byte (the jars hold no class twice)
                        assert merged.getinfo(n).CRC == info.CRC, (n, jar.name)
        # every jar's providers, in class-path order: the store types of zaro-arrow, zaro-remote,
        # zaro-parquet and zaro-s3 among them
        for name, providers in services.items():
            lines = [line.strip() for line in merged.read(name).decode().splitlines()
                     if line.strip() and not line.startswith("#")]
            assert lines == list(dict.fromkeys(providers)), name
        stores = merged.read("META-INF/services/dev.zaro.arrow.store.StoreProvider").decode()
        assert "s3" in stores.lower() and "parquet" in stores.lower()
        assert "dev.zaro.remote.RemoteStores" in stores


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


def served_environment(**env):
    """The environment of the JVM `zaro serve` runs in (the launcher execs java, so the process
    it starts is the JVM), with env added to this one."""
    p = subprocess.Popen([str(ROOT / "zaro"), "serve", str(SAMPLE), "--port", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env={**os.environ, **env})
    try:
        for line in p.stdout:
            if "serving" in line:
                break
        raw = pathlib.Path(f"/proc/{p.pid}/environ").read_bytes()
        return dict(item.split("=", 1) for item in raw.decode().split("\0") if "=" in item)
    finally:
        p.terminate()
        p.wait(timeout=60)


def test_glibc_keeps_freed_memory_unless_told_otherwise():
    # freed blocks up to 32 MiB and free arena tops up to 1 GiB stay with the process, so a served
    # read does not fault in and zero its pages again (benchmarks/README.md, "Fresh pages")
    env = served_environment()
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)
    assert env["MALLOC_TRIM_THRESHOLD_"] == str(1 << 30)
    env = served_environment(MALLOC_TRIM_THRESHOLD_="131072")
    assert env["MALLOC_TRIM_THRESHOLD_"] == "131072"  # the user's value wins
    assert env["MALLOC_MMAP_THRESHOLD_"] == str(32 << 20)
