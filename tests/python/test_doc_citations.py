"""Every section that code or docs cite exists.

Code comments and pages cite sections by title: `docs/ARCHITECTURE.md, "Memory"`, `benchmarks/README,
"Streamed shards"`, `docs/serving.md, "Timeouts and caps"` (a title may be the start of a longer
heading, such as one with its date), and Markdown links cite them by anchor:
`[...](docs/serving.md#timeouts-and-caps)`. A renamed or removed section fails here, naming the file
and line that cite it.
"""
import re
import subprocess

import pytest

from zaro_server import ROOT

# a cited document: the root README, benchmarks/README, ARCHITECTURE, any docs/*.md page
CITE = re.compile(
    r"(?P<doc>(?:benchmarks/)?README(?:\.md)?|(?:docs/)?ARCHITECTURE(?:\.md)?|docs/[\w-]+\.md|CONTRIBUTING(?:\.md)?)"
    r"(?:\s*[,:]\s*|\s+)(?:section\s+)?\"(?P<title>[^\"\n]{3,120})\"")
LINK = re.compile(r"\]\((?P<path>[^)\s#]*)#(?P<anchor>[^)\s]+)\)")
TEXT = (".java", ".py", ".md", ".sh", ".xml", ".mjs", ".toml")


def tracked_files():
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = [ROOT / f for f in out.splitlines()]
    return [f for f in files if f.is_file() and (f.suffix in TEXT or f.name in ("zaro", "test.sh"))
            and "/testdata/" not in str(f) and "node_modules" not in str(f)]


def headings(path):
    """The headings of a Markdown file, outside code blocks: their text (backticks dropped)."""
    out, fenced = [], False
    for line in path.read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            out.append(line.lstrip("#").strip().replace("`", ""))
    return out


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def document(name, citing):
    name = name.removesuffix(".md")
    if name == "README":
        return ROOT / "README.md"
    if name.endswith("ARCHITECTURE"):
        return ROOT / "docs" / "ARCHITECTURE.md"
    return ROOT / f"{name}.md"


def joined(text):
    """Comment lines joined into one (a citation may wrap): continuation markers dropped."""
    return re.sub(r"\n\s*(?:\*(?!/)|//|#(?!#))?\s*", " ", text)


def citations():
    found = []
    for f in tracked_files():
        text = f.read_text(errors="replace")
        flat = joined(text) if f.suffix != ".md" else re.sub(r"\n\s*", " ", text)
        for m in CITE.finditer(flat):
            found.append((f, m.group("doc"), m.group("title")))
        if f.suffix == ".md":
            for m in LINK.finditer(text):
                if m.group("path").startswith(("http://", "https://")):
                    continue
                found.append((f, m.group("path") or f.name, "#" + m.group("anchor")))
    return found


CITATIONS = citations()


def test_citations_are_found():
    # the scan itself works: the code cites these
    cited = {(d, t) for _, d, t in CITATIONS}
    assert any(t == "Memory" for d, t in cited), cited
    assert len(CITATIONS) >= 20


@pytest.mark.parametrize("where,doc,title", [
    pytest.param(f, d, t, id=f"{f.relative_to(ROOT)}:{d}:{t[:40]}") for f, d, t in CITATIONS])
def test_cited_section_exists(where, doc, title):
    if title.startswith("#"):
        target = (where.parent / doc).resolve() if doc != where.name else where
        assert target.is_file(), f"{where.relative_to(ROOT)} links to {doc}, which does not exist"
        anchors = {slug(h) for h in headings(target)}
        assert title[1:] in anchors, f"{where.relative_to(ROOT)} links to {doc}{title}: no such heading"
        return
    target = document(doc, where)
    assert target.is_file(), f"{where.relative_to(ROOT)} cites {doc}, which does not exist"
    wanted = title.replace("`", "").lower()
    assert any(h.lower().startswith(wanted) for h in headings(target)), \
        f"{where.relative_to(ROOT)} cites {doc}, \"{title}\": no heading of {target.relative_to(ROOT)} starts so"


def test_relative_links_stay_inside_the_repository_and_exist():
    """A page links to files of this checkout only (docs/ARCHITECTURE once pointed at ../shared)."""
    bad = []
    for f in tracked_files():
        if f.suffix != ".md":
            continue
        for m in re.finditer(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", f.read_text(errors="replace")):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                continue
            path = (f.parent / target).resolve()
            if ROOT.resolve() not in path.parents and path != ROOT.resolve() or not path.exists():
                bad.append(f"{f.relative_to(ROOT)}: {target}")
    assert not bad, bad
    architecture = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    assert "../shared" not in architecture and "DESIGN.md" not in architecture
