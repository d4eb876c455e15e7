"""The README's Java example, built as a library user builds it: a separate Maven project that
depends on dev.zaro:zaro-arrow (and slf4j-nop, as the README's Java section advises), compiled and
run by Maven offline against the artifacts this checkout built.

The artifacts are laid out as `mvn install` lays them out, in a local repository of the test's
own: every other entry of the default local repository (~/.m2/repository, which the checkout's
own build filled) is linked into it, so Maven resolves the rest offline and the user's repository
is left untouched. The run proves what a user meets:
- one Jackson version on the class path (mixed ones failed Zaro.list() with NoClassDefFoundError);
- no SLF4J "no providers" warning;
- the example's output: the node list and the rows it reads.
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

from zaro_server import ROOT, ZARO

M2 = pathlib.Path.home() / ".m2" / "repository"
NS = {"m": "http://maven.apache.org/POM/4.0.0"}


def pom(path):
    return ET.parse(path).getroot()


def plugin_versions():
    """The versions the checkout's own build pins (so Maven finds them offline)."""
    out = {}
    for plugin in pom(ROOT / "pom.xml").iterfind(".//m:pluginManagement/m:plugins/m:plugin", NS):
        version = plugin.findtext("m:version", namespaces=NS)
        if version and not version.startswith("$"):
            out[plugin.findtext("m:artifactId", namespaces=NS)] = version
    return out


def readme_example():
    readme = (ROOT / "README.md").read_text()
    blocks = [b for b in re.findall(r"```java\n(.*?)```", readme, re.S) if "public class Example" in b]
    assert len(blocks) == 1, "the README should hold one Java example (public class Example)"
    return blocks[0]


def overlay_repository(repo, version):
    """A local repository: links to every entry of ~/.m2/repository except dev/zaro, and zaro's
    parent pom and zaro-arrow (pom and jar) where `mvn install` puts them."""
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


PROJECT = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>uses-zaro</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.zaro</groupId>
      <artifactId>zaro-arrow</artifactId>
      <version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>{slf4j}</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>{compiler}</version></plugin>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>{resources}</version></plugin>
      <plugin><artifactId>maven-dependency-plugin</artifactId><version>{dependency}</version></plugin>
    </plugins>
  </build>
</project>
"""


def test_readme_java_example_as_a_separate_project(tmp_path):
    if shutil.which("mvn") is None or not M2.is_dir():
        pytest.skip("needs mvn and the local repository the checkout's build filled")
    subprocess.run([ZARO, "--version"], check=True, capture_output=True, timeout=1800)  # builds if needed
    version = pom(ROOT / "pom.xml").findtext("m:version", namespaces=NS)
    slf4j = next(d.findtext("m:version", namespaces=NS)
                 for d in pom(ROOT / "zaro-cli" / "pom.xml").iterfind(".//m:dependency", NS)
                 if d.findtext("m:artifactId", namespaces=NS) == "slf4j-nop")
    plugins = plugin_versions()
    repo = tmp_path / "repo"
    overlay_repository(repo, version)
    project = tmp_path / "project"
    src = project / "src" / "main" / "java"
    src.mkdir(parents=True)
    (src / "Example.java").write_text(readme_example())
    (project / "pom.xml").write_text(PROJECT.format(
        version=version, slf4j=slf4j, compiler=plugins["maven-compiler-plugin"],
        resources=plugins["maven-resources-plugin"], dependency=plugins["maven-dependency-plugin"]))
    classpath = project / "classpath.txt"
    env = {k: v for k, v in os.environ.items() if k not in ("MAVEN_OPTS", "MAVEN_ARGS")}
    r = subprocess.run(["mvn", "-o", "-q", "-B", "-Dstyle.color=never", f"-Dmaven.repo.local={repo}",
                        "compile", "dependency:build-classpath", f"-Dmdep.outputFile={classpath}"],
                       cwd=project, capture_output=True, text=True, timeout=900, env=env)
    assert r.returncode == 0, r.stdout + r.stderr

    jars = classpath.read_text().strip().split(os.pathsep)
    jackson = {}
    for jar in jars:
        m = re.match(r"(jackson-[a-z0-9-]+?)-(\d+\.\d+)(?:\.\d+)?\.jar$", pathlib.Path(jar).name)
        if m:
            jackson[m.group(1)] = m.group(2)
    assert {"jackson-core", "jackson-databind", "jackson-annotations"} <= jackson.keys(), jackson
    assert len(set(jackson.values())) == 1, f"mixed Jackson versions on a user's class path: {jackson}"

    r = subprocess.run(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp",
                        os.pathsep.join([str(project / "target" / "classes"), *jars]), "Example"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "SLF4J" not in r.stderr, r.stderr
    assert r.stderr == "", r.stderr
    lines = r.stdout.splitlines()
    # zaro.list() names the sample's arrays; then t2m's type and first 24 time steps as a tensor (a
    # row per time step), and its first 2 as table rows in batches (from the store's metadata)
    meta = json.loads((ROOT / "testdata" / "sample" / "climate.zarr" / "t2m" / "zarr.json").read_text())
    _, lat, lon = meta["shape"]
    for name in ("t2m", "precip", "time", "lat", "lon"):
        assert name in lines[0], lines[0]
    assert lines[1] == f"{meta['data_type']} 24 rows", lines
    assert sum(int(line.split()[0]) for line in lines[2:]) == 2 * lat * lon, lines
