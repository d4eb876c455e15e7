"""Every example in README.md runs as written, against the bundled sample.

The README marks what a block needs with an HTML comment on the line before it:
- no mark: a `bash` or `python` block runs as it is, from a scratch directory that sees the
  checkout's `testdata/` and `examples/` (`./zaro` is the checkout's launcher);
- `<!-- readme-test: server -->`: the block talks to `./zaro serve testdata/sample/climate.zarr --sql
  --http-port 8816`; the test starts that server once on free loopback ports and puts them in
  place of 8815 (Flight) and 8816 (HTTP);
- `<!-- readme-test: output-next -->`: the block's stdout must be the ```text block after it;
- `<!-- readme-test: drop-line X: why -->`: lines starting with X are left out (`./test.sh` is the
  suite that runs this test);
- `<!-- readme-test: java-example -->`: the Maven project examples/java is built and run by this
  command, offline, and its output checked against tensorstore's read of the sample;
- `<!-- readme-test: skip REASON -->`: not run here, for the reason given.
Python blocks run in this interpreter's environment, and every package they import must be named
in the README's `pip install` line. The exit codes table (docs/cli.md, linked from the README) is run
row by row.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
import tensorstore as ts

from zaro_server import ROOT, ZARO, Server

README = (ROOT / "README.md").read_text()
CLI_DOC = (ROOT / "docs" / "cli.md").read_text()  # its exit codes table, which the README links
SAMPLE = ROOT / "testdata" / "sample" / "climate.zarr"
BLOCK = re.compile(r"(?:<!-- readme-test: (?P<mark>[^\n]*?) -->\n)?```(?P<lang>\w*)\n(?P<code>.*?)```", re.S)
BLOCKS = [(m.group("mark") or "", m.group("lang"), m.group("code"), m.end()) for m in BLOCK.finditer(README)]
RUN = {"bash", "python"}
NOT_CODE = {"", "text", "xml"}  # synopses, URLs and expected output


def runnable():
    out = []
    for i, (mark, lang, code, _) in enumerate(BLOCKS):
        if lang in RUN and not mark.startswith(("skip", "java-example")):
            out.append(pytest.param(i, id=f"{lang}-{i}-{code.splitlines()[0][:40]}"))
    return out


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch directory that sees the checkout's testdata (read-only use)."""
    d = tmp_path_factory.mktemp("readme")
    (d / "testdata").symlink_to(ROOT / "testdata")
    # the first command of the README: later examples read the file it writes
    subprocess.run([ZARO, "read", str(SAMPLE), "t2m", "--slice", "0:24, :, :", "--out", "t2m.arrow"],
                   cwd=d, check=True, capture_output=True, timeout=600)
    return d


@pytest.fixture(scope="module")
def server():
    with Server(SAMPLE, "--sql", "--http-port", "0") as s:
        yield s


def prepare(mark, code, request):
    if mark.startswith("drop-line "):
        prefix = mark.split()[1].rstrip(":")
        code = "\n".join(line for line in code.splitlines() if not line.startswith(prefix)) + "\n"
    if mark == "server":
        s = request.getfixturevalue("server")
        code = code.replace("127.0.0.1:8815", f"127.0.0.1:{s.port}")
        code = code.replace("http://127.0.0.1:8816", s.http)
    return code.replace("./zaro ", ZARO + " ")


@pytest.mark.parametrize("index", runnable())
def test_example_runs_as_written(index, workdir, request):
    mark, lang, code, end = BLOCKS[index]
    code = prepare(mark, code, request)
    command = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
    r = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{code}\n{r.stdout}\n{r.stderr}"
    if mark == "output-next":
        following = BLOCK.match(README, README.index("```", end))
        assert following and following.group("lang") == "text", "output-next wants a ```text block next"
        assert r.stdout == following.group("code"), r.stdout


def test_every_block_is_run_or_says_why_not():
    for mark, lang, code, _ in BLOCKS:
        if lang in NOT_CODE or mark.startswith(("skip ", "java-example")):
            assert not mark.startswith("skip") or len(mark) > len("skip ") + 10, f"a skip needs its reason: {mark}"
            continue
        if lang == "java":
            # the Java example is examples/java's source, which test_java_example builds and runs
            assert code == (ROOT / "examples/java/src/main/java/Example.java").read_text(), \
                "the README's Java example differs from examples/java/src/main/java/Example.java"
            continue
        assert lang in RUN, f"a ```{lang} block is neither run nor marked skip with a reason"


def test_the_readme_names_every_package_its_examples_import():
    named = set(re.search(r"pip install ([^`]+)`", README).group(1).split())
    for mark, lang, code, _ in BLOCKS:
        if lang != "python" or mark.startswith("skip"):
            continue
        for m in re.finditer(r"^\s*(?:import|from)\s+([\w., ]+)", code, re.M):
            for module in m.group(1).replace(" import", ",").split(","):
                top = module.strip().split()[0].split(".")[0] if module.strip() else ""
                if not top or top in sys.stdlib_module_names:
                    continue
                package = {"zaro_client": "./clients/python"}.get(top, top)
                assert package in named, f"{top} is imported by an example but not in `pip install`"
            if "to_numpy" in code:  # pyarrow's numpy conversions
                assert "numpy" in named


def exit_code_rows():
    section = CLI_DOC.split("## Exit codes", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| (\d) \|[^\n]*\| `([^`]+)` \|$", section, re.M)
    assert len(rows) >= 4, section
    return [pytest.param(int(code), command, id=command[:50]) for code, command in rows]


@pytest.mark.parametrize("code,command", exit_code_rows())
def test_exit_codes_are_as_the_readme_says(code, command, workdir):
    r = subprocess.run(["bash", "-c", command.replace("./zaro ", ZARO + " ")], cwd=workdir,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == code, f"{command}: {r.returncode}\n{r.stderr}"
    if code:
        assert r.stderr.startswith("zaro: error: "), r.stderr
        assert "\tat " not in r.stderr, r.stderr  # no stack trace
    if " --out " in command and code:
        assert not (workdir / command.split(" --out ")[1].split()[0]).exists()


# ---- the Java example: examples/java, built by Maven offline as a library user builds it -----------

M2 = pathlib.Path.home() / ".m2" / "repository"
NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def overlay_repository(repo, version):
    """A local repository: links to every entry of ~/.m2/repository (which the checkout's own build
    filled) but dev/zaro, and zaro's parent pom and zaro-arrow's pom and jar where `mvn install`
    would put them. So Maven resolves everything offline and the shared ~/.m2 is left untouched
    (no `mvn install` of the checkout into it)."""
    repo.mkdir()
    for entry in M2.iterdir():
        if entry.name != "dev":
            (repo / entry.name).symlink_to(entry)
    dev = repo / "dev"
    dev.mkdir()
    if (M2 / "dev").is_dir():
        for entry in (M2 / "dev").iterdir():
            if entry.name != "zaro":
                (dev / entry.name).symlink_to(entry)
    parent = dev / "zaro" / "zaro-parent" / version
    parent.mkdir(parents=True)
    shutil.copyfile(ROOT / "pom.xml", parent / f"zaro-parent-{version}.pom")
    arrow = dev / "zaro" / "zaro-arrow" / version
    arrow.mkdir(parents=True)
    shutil.copyfile(ROOT / "zaro-arrow" / "pom.xml", arrow / f"zaro-arrow-{version}.pom")
    shutil.copyfile(ROOT / "zaro-arrow" / "target" / f"zaro-arrow-{version}.jar",
                    arrow / f"zaro-arrow-{version}.jar")


def test_the_java_examples_plugins_are_the_builds_own():
    """examples/java builds offline only with plugin versions the checkout's build put in ~/.m2."""
    managed = {p.findtext("m:artifactId", namespaces=NS): p.findtext("m:version", namespaces=NS)
               for p in ET.parse(ROOT / "pom.xml").getroot().iterfind(".//m:pluginManagement/m:plugins/m:plugin", NS)}
    example = ET.parse(ROOT / "examples/java/pom.xml").getroot()
    plugins = list(example.iterfind(".//m:build/m:plugins/m:plugin", NS))
    assert plugins
    for p in plugins:
        name = p.findtext("m:artifactId", namespaces=NS)
        assert p.findtext("m:version", namespaces=NS) == managed[name], name
    version = ET.parse(ROOT / "pom.xml").getroot().findtext("m:version", namespaces=NS)
    deps = {d.findtext("m:artifactId", namespaces=NS): d.findtext("m:version", namespaces=NS)
            for d in example.iterfind(".//m:dependencies/m:dependency", NS)}
    assert deps["zaro-arrow"] == version


def test_java_example(tmp_path):
    if shutil.which("mvn") is None or not M2.is_dir():
        pytest.skip("needs mvn and the local repository the checkout's build filled")
    subprocess.run([ZARO, "--version"], check=True, capture_output=True, timeout=1800)  # builds if needed
    [(mark, line)] = [(m, c.strip()) for m, lang, c, _ in BLOCKS if m == "java-example"]
    assert line.startswith("mvn ") and "--add-opens=java.base/java.nio=ALL-UNNAMED" in line, line
    version = ET.parse(ROOT / "pom.xml").getroot().findtext("m:version", namespaces=NS)
    repo = tmp_path / "repo"
    overlay_repository(repo, version)
    work = tmp_path / "work"
    shutil.copytree(ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("target"))
    (work / "testdata").symlink_to(ROOT / "testdata")
    # as written, but offline and against the overlay repository
    command = line.replace("mvn ", f"mvn -o -B -Dstyle.color=never -Dmaven.repo.local={repo} ", 1)
    env = {k: v for k, v in os.environ.items() if k not in ("MAVEN_OPTS", "MAVEN_ARGS")}
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=work, capture_output=True,
                       text=True, timeout=900, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    stderr = re.sub(r"\x1b\[[0-9;]*m", "", r.stderr).strip()  # Maven 3.8 resets colours even when told not to
    assert stderr == "", stderr  # no SLF4J "no providers" warning, nothing else

    jars = (work / "examples/java/target/classpath.txt").read_text().strip().split(os.pathsep)
    jackson = {}
    for jar in jars:
        m = re.match(r"(jackson-[a-z0-9-]+?)-(\d+\.\d+)(?:\.\d+)?\.jar$", pathlib.Path(jar).name)
        if m:
            jackson[m.group(1)] = m.group(2)
    assert {"jackson-core", "jackson-databind", "jackson-annotations"} <= jackson.keys(), jackson
    assert len(set(jackson.values())) == 1, f"mixed Jackson versions on a user's class path: {jackson}"

    # expected values from the store's own metadata and tensorstore's read, not from zaro
    lines = r.stdout.splitlines()
    root = json.loads((SAMPLE / "zarr.json").read_text())
    for name in root["consolidated_metadata"]["metadata"]:
        assert name in lines[0], lines[0]
    meta = json.loads((SAMPLE / "t2m" / "zarr.json").read_text())
    _, lat, lon = meta["shape"]
    assert lines[1] == f"{meta['data_type']} 24 rows", lines
    t2m = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / "t2m")}}).result()
    slab = t2m[0:24].read().result()
    m = re.fullmatch(r"shape \[(\d+), (\d+), (\d+)\] mean (\S+)", lines[2])
    assert m, lines[2]
    assert tuple(map(int, m.groups()[:3])) == slab.shape
    assert float(m.group(4)) == pytest.approx(float(np.mean(slab, dtype=np.float64)), abs=1e-3)
    assert sum(int(line.split()[0]) for line in lines[3:]) == 2 * lat * lon, lines


def test_the_shell_examples_output_is_right():
    """The means the README's shell example shows, from tensorstore's read of the sample: t2m over
    30 <= lat <= 60 at the first two time steps (the time coordinate is hours since 2020-01-01)."""
    block = README[README.index("<!-- readme-test: output-next -->"):]
    shown = re.findall(r"│ 2020-01-01 (\d\d):00:00 │ ([\d.]+) │", block.split("```text", 1)[1].split("```", 1)[0])
    assert len(shown) == 2, shown

    def read(name):
        return ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": str(SAMPLE / name)}}).result().read().result()

    lat, t2m, hours = read("lat"), read("t2m"), read("time")
    rows = (lat >= 30) & (lat <= 60)
    for (hour, mean), step in zip(shown, range(2)):
        assert int(hours[step]) == int(hour)
        assert float(mean) == round(float(np.mean(t2m[step][rows, :], dtype=np.float64)), 3)
