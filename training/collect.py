"""Collect (description, code) pairs from public code, pinned by version and sha256.

    python -m training.collect pin   [--data DIR]   # resolve packages.txt -> sources.json (versions, sha256)
    python -m training.collect fetch [--data DIR]   # download exactly sources.json's archives, check each sha256
    python -m training.collect pairs [--data DIR]   # parse them with hookgraph's parser -> DIR/pairs.jsonl
                                                    #   (and DIR/file-pairs.jsonl: see ``file`` below)

Sources are PyPI source distributions, npm tarballs and Debian source packages (bookworm), the
registries this project's machines reach. Each is refused when ``exclude.txt`` names it
(:mod:`training.exclude`), and inside an archive every vendored folder is skipped.

A pair is what a question and its answer look like at search time:
- ``doc``: a unit's doc comment or docstring (first paragraph, parameter lists dropped) against the
  unit's embedded text (:func:`hookgraph.parse.compose.embed_text`) with that comment removed;
- ``name``: the words of an undocumented definition's name (``parse_http_date`` -> "parse http date")
  against its body without the name;
- ``file``: a file's own documentation (a module docstring, Rust's ``//!``, Go's package comment, a
  header comment) or a documentation section that names it (Sphinx's ``automodule``) against the file's
  fingerprint as hookgraph embeds it (its path and the names it defines): questions about a design are
  answered by files, and this is the pair that says what a whole file is about.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, Iterator

from training.exclude import excluded_names, is_excluded, skipped_path

HERE = Path(__file__).resolve().parent
PACKAGES = HERE / "packages.txt"
SOURCES = HERE / "sources.json"
DEFAULT_DATA = Path(os.environ.get("HOOKGRAPH_TRAINING_DATA", Path.home() / ".cache" / "hookgraph-training"))
DEBIAN_SOURCES = ("deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
                  "http://deb.debian.org/debian bookworm main\n")
#: Files larger than this are generated or data, not code anyone documents.
MAX_FILE_BYTES = 400_000
#: Pairs one source may give: a huge project must not teach its own dialect to the whole table.
MAX_PAIRS_PER_SOURCE = 12_000
#: ``file`` pairs one source may give (they go to their own file, ``file-pairs.jsonl``: see ``cmd_pairs``).
MAX_FILE_PAIRS_PER_SOURCE = 3_000
#: Share of a source's pairs that may come from names alone (the documented ones teach more).
NAME_SHARE = 0.35
#: A file comment that says any of these is a licence or a banner, not what the file does.
_LICENCE = re.compile(r"copyright|licen[cs]e|all rights reserved|spdx|warranty|permission is hereby", re.I)
CODE_KINDS = {"function", "method", "class", "interface", "struct", "enum", "trait", "type", "module", "constant"}


@dataclasses.dataclass
class Source:
    registry: str
    package: str
    language: str
    version: str = ""
    archive: str = ""
    url: str = ""
    sha256: str = ""


def read_packages(path: Path = PACKAGES) -> list[Source]:
    out = []
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            registry, package, language = line.split()
            out.append(Source(registry, package, language))
    return out


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=180) as response:
        return response.read()


def _absolute(url: str, base: str) -> str:
    """A registry may answer with links relative to the page that lists them."""
    return urllib.parse.urljoin(base, url)


def _apt_options(root: Path) -> list[str]:
    (root / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (root / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    (root / "sources.list").write_text(DEBIAN_SOURCES)
    return [f"-oDir::Etc::SourceList={root / 'sources.list'}", "-oDir::Etc::SourceParts=/nonexistent",
            f"-oDir::State::Lists={root / 'lists'}", f"-oDir::Cache={root / 'cache'}", "-qq",
            # Several sources download at once, each into its own folder: apt's lock would refuse all but one.
            "-oDebug::NoLocking=1"]


def _debian_source_spec(source: Source, apt: list[str]) -> str:
    """``package=debian-version`` for ``apt-get source``. The pin records the upstream version read from the
    tarball's name (``1.2.13.dfsg``), which apt does not take: the Debian version around it (``1:1.2.13.dfsg-1``)
    is looked up in the source index. The archive's sha256 is checked after the download either way."""
    if not source.version:
        return source.package
    shown = subprocess.run(["apt-cache", *apt, "showsrc", source.package], check=False, capture_output=True,
                           text=True, timeout=600).stdout
    versions = [line.split(" ", 1)[1].strip() for line in shown.splitlines() if line.startswith("Version: ")]
    return f"{source.package}={debian_version_of(source.version, versions) or source.version}"


def debian_version_of(upstream: str, versions: list[str]) -> str | None:
    """The Debian version among ``versions`` whose upstream part (no epoch, no Debian revision) is ``upstream``."""
    for debian in versions:
        if debian == upstream or debian.split(":", 1)[-1].rsplit("-", 1)[0] == upstream:
            return debian
    return None


def _debian_download(source: Source, folder: Path, apt: list[str]) -> Path:
    """The source package's upstream tarball (the orig, or a native package's one tarball)."""
    folder.mkdir(parents=True, exist_ok=True)
    spec = _debian_source_spec(source, apt)
    subprocess.run(["apt-get", *apt, "source", "--download-only", spec], cwd=folder, check=True,
                   capture_output=True, timeout=600)
    tars = sorted(p for p in folder.iterdir() if ".tar." in p.name and ".debian.tar." not in p.name
                  and p.name.startswith(source.package + "_"))
    origs = [p for p in tars if ".orig.tar." in p.name and ".orig-" not in p.name]
    chosen = origs or tars
    if not chosen:
        raise RuntimeError(f"no upstream tarball for {source.package}")
    return chosen[0]


def deb_spec(source: Source) -> str:
    """``package=version`` for ``apt-get download``. The pinned version comes from the .deb's file name, where
    apt writes an epoch's ':' as '%3a'."""
    return f"{source.package}={urllib.parse.unquote(source.version)}" if source.version else source.package


def _deb_download(source: Source, folder: Path) -> Path:
    """A Debian binary package (``-dev`` and library packages carry their language's source files)."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "-qq", "download", deb_spec(source)], cwd=folder, check=True, capture_output=True, timeout=600)
    found = sorted(folder.glob(f"{source.package}_*.deb"), key=lambda p: p.stat().st_mtime)
    if not found:
        raise RuntimeError(f"apt-get download left no {source.package}_*.deb")
    return found[-1]


def pin_one(source: Source, data: Path, apt: list[str]) -> Source:
    """Resolve ``source`` to the registry's current version and its archive's sha256 (downloading it)."""
    archives = data / "archives"
    archives.mkdir(parents=True, exist_ok=True)
    if source.registry == "pypi":
        page = f"https://pypi.org/pypi/{source.package}/json"
        meta = json.loads(_get(page))
        version = meta["info"]["version"]
        sdists = [f for f in meta["urls"] if f["packagetype"] == "sdist"]
        if not sdists:
            raise RuntimeError("no sdist")
        f = sdists[0]
        source.version, source.archive, source.url, source.sha256 = version, f["filename"], _absolute(f["url"], page), \
            f["digests"]["sha256"]
        target = archives / source.archive
        if not target.exists():
            blob = _get(source.url)
            if _sha256(blob) != source.sha256:
                raise RuntimeError("sha256 differs from PyPI's")
            target.write_bytes(blob)
    elif source.registry == "npm":
        name = source.package.replace("/", "%2F")
        meta = json.loads(_get(f"https://registry.npmjs.org/{name}/latest"))
        source.version, source.url = meta["version"], meta["dist"]["tarball"]
        source.archive = source.package.replace("@", "").replace("/", "-") + f"-{source.version}.tgz"
        target = archives / source.archive
        blob = target.read_bytes() if target.exists() else _get(source.url)
        target.write_bytes(blob)
        source.sha256 = _sha256(blob)
    elif source.registry == "deb":
        target = _deb_download(source, archives / "deb")
        source.version = target.name.split("_")[1]
        source.archive = f"deb/{target.name}"
        source.sha256 = _sha256(target.read_bytes())
    elif source.registry == "debsrc":
        folder = archives / f"debsrc-{source.package}"
        tarball = _debian_download(source, folder, apt)
        source.version = tarball.name.split("_", 1)[1].split(".orig.tar.")[0].split(".tar.")[0]
        source.archive = f"debsrc-{source.package}/{tarball.name}"
        source.sha256 = _sha256(tarball.read_bytes())
    else:
        raise RuntimeError(f"unknown registry {source.registry}")
    return source


def fetch_one(source: Source, data: Path, apt: list[str]) -> Path:
    """Download exactly the pinned archive (if not already here) and check its sha256."""
    target = data / "archives" / source.archive
    if not target.exists():
        if source.registry in ("pypi", "npm"):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_get(source.url))
        elif source.registry == "deb":
            _deb_download(source, target.parent)
        else:
            _debian_download(source, target.parent, apt)
    digest = _sha256(target.read_bytes())
    if digest != source.sha256:
        raise RuntimeError(f"{target.name}: sha256 {digest} is not the pinned {source.sha256}")
    return target


def iter_archive(path: Path) -> Iterator[tuple[str, bytes]]:
    """``(path inside the archive, bytes)`` of every regular file small enough to be code."""
    if path.name.endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            for info in z.infolist():
                if not info.is_dir() and info.file_size <= MAX_FILE_BYTES:
                    yield info.filename, z.read(info)
        return
    if path.name.endswith(".deb"):
        contents = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(path)], check=True, capture_output=True).stdout
        tar_source: Any = tarfile.open(fileobj=io.BytesIO(contents))
    else:
        tar_source = tarfile.open(path)
    with tar_source as tar:
        for member in tar:
            if member.isfile() and member.size <= MAX_FILE_BYTES:
                handle = tar.extractfile(member)
                if handle is not None:
                    yield member.name, handle.read()


_PARAM_LINE = re.compile(r"^\s*(:param|:type|:return|:rtype|:raises|@param|@return|@throws|@type|@see|@since|"
                         r"@example|@deprecated|args:|arguments:|returns:|raises:|parameters\b|example|>>>|\.\. )",
                         re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]{2,}")


def clean_description(doc: str) -> str | None:
    """The docstring's first paragraph as a question would say it, or None when it says too little."""
    lines: list[str] = []
    for line in doc.strip().splitlines():
        if not line.strip():
            if lines:
                break
            continue
        if _PARAM_LINE.match(line):
            break
        lines.append(line.strip())
    text = " ".join(lines)
    text = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", text)  # {@link Foo} -> Foo
    text = re.sub(r"<[^>]{1,40}>", " ", text)  # html tags
    text = re.sub(r"\s+", " ", text).strip()[:400]
    words = _WORD.findall(text)
    if len(words) < 4 or len(text) < 20:
        return None
    lowered = text.lower()
    if lowered.startswith(("todo", "fixme", "copyright", "license", "licensed", "generated", "autogenerated",
                           "deprecated", "noqa", "type:", "pylint", "eslint", "@")):
        return None
    return text


def _strip_comment(line: str) -> str:
    return re.sub(r"^\s*(#+|//+!?|/\*+!?|\*+/?|--+|\"\"\"|'''|;+|%+)\s*", "", line).strip().rstrip("*/").strip()


def without_doc(text: str, doc: str) -> str:
    """``text`` minus the lines that carry ``doc`` (a docstring inside the body, or a leading comment)."""
    flat = re.sub(r"\s+", " ", doc)
    kept = []
    for line in text.splitlines():
        core = re.sub(r"\s+", " ", _strip_comment(line)).strip("\"'` ")
        if len(core) >= 3 and core in flat:
            continue
        kept.append(line)
    return "\n".join(kept)


def unit_pairs(parsed: Any, rng: random.Random) -> Iterator[dict[str, str]]:
    from hookgraph.parse.compose import embed_text
    from hookgraph.parse.words import identifier_words

    calls: dict[str, list[str]] = {}
    for edge in parsed.edges:
        if edge.kind == "calls":
            calls.setdefault(edge.source, []).append(edge.target)
    members: dict[str, list[Any]] = {}
    for unit in parsed.units:
        if unit.parent:
            members.setdefault(unit.parent, []).append(unit)
    for unit in parsed.units:
        if unit.kind == "file":
            pair = file_pair(unit, unit.docstring, members.get(unit.qualname))
            if pair:
                yield pair
            continue
        if unit.kind not in CODE_KINDS or unit.end_line - unit.start_line < 1:
            continue
        described = clean_description(unit.docstring) if unit.docstring else None
        if described:
            bare = dataclasses.replace(unit, docstring="", text=without_doc(unit.text, unit.docstring))
            code = embed_text(bare, calls.get(unit.qualname, []), members.get(unit.qualname))
            yield {"q": described, "d": code, "kind": "doc"}
        else:
            words = identifier_words(unit.name)
            if len(words) < 2 or unit.end_line - unit.start_line < 2:
                continue
            body = "\n".join(unit.text.splitlines()[1:])
            body = re.sub(re.escape(unit.name), " ", body)
            bare = dataclasses.replace(unit, name="", qualname=unit.kind, signature="", docstring="", text=body)
            code = embed_text(bare, calls.get(unit.qualname, []), members.get(unit.qualname))
            parent = identifier_words(unit.parent.rsplit(".", 1)[-1]) if unit.parent else []
            query = " ".join(words + (["in"] + parent if parent and rng.random() < 0.5 else []))
            yield {"q": query, "d": code, "kind": "name"}


def file_pair(unit: Any, doc: str, members: list[Any] | None) -> dict[str, str] | None:
    """A ``file`` pair: ``doc`` (the file's own comment, or a section about it) against the file's fingerprint.

    The fingerprint is what hookgraph embeds for the file (``file PATH`` and ``defines: ...``, with the
    doc's sentence taken out), so the pair teaches the table what a file's path and names say about it."""
    from hookgraph.parse.compose import embed_text

    described = clean_description(doc) if doc else None
    if not described or _LICENCE.search(described) or unit.end_line - unit.start_line < 3:
        return None
    bare = dataclasses.replace(unit, docstring="", text=without_doc(unit.text, doc))
    code = embed_text(bare, [], members)
    if "\n" not in code.strip():  # a path alone: the file defines nothing to say it by
        return None
    return {"q": described, "d": code, "kind": "file"}


#: A reST section that documents a Python module: ``.. automodule:: aiohttp.web`` (or ``.. module::``).
_AUTOMODULE = re.compile(r"^\.\.\s+(?:auto)?module::\s*([A-Za-z_][\w.]*)\s*$", re.M)
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+]{3,})\s*$")


def rst_module_sections(text: str) -> Iterator[tuple[str, str]]:
    """``(module, description)`` for each reST section that names a module with ``automodule``/``module``.

    The description is the section's title and its first paragraph of prose (directives and their
    options left out): what a person wrote about that module, in the words they use for it."""
    lines = text.splitlines()
    starts = [0] + [i - 1 for i in range(1, len(lines)) if _RST_UNDERLINE.match(lines[i]) and lines[i - 1].strip()
                    and len(lines[i].strip()) >= len(lines[i - 1].strip())]
    for begin, end in zip(starts, starts[1:] + [len(lines)]):
        section = "\n".join(lines[begin:end])
        found = _AUTOMODULE.search(section)
        if not found:
            continue
        title = lines[begin].strip() if begin + 1 < len(lines) and _RST_UNDERLINE.match(lines[begin + 1]) else ""
        prose: list[str] = []
        for line in lines[begin + 2 if title else begin:end]:
            stripped = line.strip()
            if stripped.startswith(".. ") or _RST_UNDERLINE.match(line) or (prose and not stripped):
                if prose:
                    break
                continue
            if stripped and not line.startswith((" ", "\t")):
                prose.append(stripped)
        title = re.sub(r"[`:*]|\b(mod|class|func)\b", " ", title)
        text_out = " ".join([title.strip().rstrip(".") + "." if title.strip() else "", *prose]).strip()
        yield found.group(1), re.sub(r"\s+", " ", re.sub(r":\w+:`~?([^`]*)`|``([^`]*)``", r"\1\2", text_out))


def source_pairs(source: Source, archive: Path, names: set[str], seed: int = 0) -> list[dict[str, str]]:
    """Every pair one archive gives, capped (``MAX_PAIRS_PER_SOURCE``, ``NAME_SHARE``)."""
    from hookgraph.parse import parse_file
    from hookgraph.parse.filters import content_skip_reason, path_skip_reason

    rng = random.Random(f"{seed}:{source.package}")
    documented: list[dict[str, str]] = []
    named: list[dict[str, str]] = []
    seen: set[str] = set()

    files: list[dict[str, str]] = []

    def add(pair: dict[str, str], language: str) -> None:
        key = pair["d"] if pair["kind"] == "name" else f"{pair['kind']}:{pair['q']}"
        if key not in seen:
            seen.add(key)
            pair.update(lang=language, src=source.package)
            {"doc": documented, "name": named, "file": files}[pair["kind"]].append(pair)

    python_files: dict[str, Any] = {}  # dotted module -> (file unit, its top-level units)
    rst_docs: list[bytes] = []
    for path, data in iter_archive(archive):
        inner = path.split("/", 1)[1] if "/" in path else path
        if skipped_path(inner, names) or b"\0" in data[:8000]:
            continue
        lowered = inner.lower()
        if lowered.endswith((".rst", ".txt")) and b"module::" in data and "test" not in lowered:
            rst_docs.append(data)
            continue
        if any(part in lowered for part in ("test", "spec/", "example", "/docs/", "benchmark", ".min.", "dist/",
                                            "generated", "fixtures")):
            continue
        if path_skip_reason(inner, len(data)) or content_skip_reason(data):
            continue
        parsed = parse_file(inner, data, text_chunks=False)
        if parsed is None or not parsed.language or parsed.language in ("markdown", "rst", "text", "json", "yaml"):
            continue
        if parsed.language == "python" and parsed.units and parsed.units[0].kind == "file":
            top_level = [u for u in parsed.units if u.parent == parsed.units[0].qualname]
            for module in python_module_names(inner):
                python_files.setdefault(module, (parsed.units[0], top_level or None))
        for pair in unit_pairs(parsed, rng):
            add(pair, parsed.language)
    for data in rst_docs:
        for module, description in rst_module_sections(data.decode("utf-8", "replace")):
            if module in python_files:
                unit, top_level = python_files[module]
                documenting = file_pair(unit, description, top_level)
                if documenting:
                    add(documenting, "python")
    rng.shuffle(documented)
    rng.shuffle(named)
    documented = documented[:MAX_PAIRS_PER_SOURCE]
    room = min(MAX_PAIRS_PER_SOURCE - len(documented), int(len(documented) * NAME_SHARE / (1 - NAME_SHARE)) + 200)
    random.Random(f"{seed}:{source.package}:files").shuffle(files)
    return documented + named[:max(room, 0)] + files[:MAX_FILE_PAIRS_PER_SOURCE]


def python_module_names(path: str) -> list[str]:
    """The dotted names a Python file may be documented by: ``src/aiohttp/web.py`` -> ``src.aiohttp.web``,
    ``aiohttp.web``, ``web`` (every suffix, as a sdist's layout does not say where the package starts)."""
    if not path.endswith(".py"):
        return []
    parts = path[:-3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join(parts[i:]) for i in range(len(parts)) if parts[i:]]


def load_sources() -> list[Source]:
    return [Source(**row) for row in json.loads(SOURCES.read_text())["sources"]]


def cmd_pin(data: Path, jobs: int) -> int:
    names = excluded_names()
    wanted = []
    for source in read_packages():
        hit = is_excluded(source.package, names)
        if hit:
            print(f"refused {source.registry}:{source.package}: exclude.txt names {hit!r}", file=sys.stderr)
        else:
            wanted.append(source)
    apt = _apt_options(data / "apt")
    subprocess.run(["apt-get", *apt, "update"], check=True, capture_output=True, timeout=600)
    subprocess.run(["apt-get", "-qq", "update"], check=True, capture_output=True, timeout=600)
    pinned: list[Source] = []
    # Registries over HTTP in parallel; apt one source at a time (parallel runs clash in its partial folder).
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool, concurrent.futures.ThreadPoolExecutor(1) as apt_pool:
        futures = {(apt_pool if s.registry.startswith("deb") else pool).submit(pin_one, s, data, apt): s for s in wanted}
        for future in concurrent.futures.as_completed(futures):
            source = futures[future]
            try:
                pinned.append(future.result())
                print(f"pinned {source.registry}:{source.package} {source.version}", file=sys.stderr)
            except Exception as exc:  # a name a registry no longer has: left out, said
                print(f"left out {source.registry}:{source.package}: {exc}", file=sys.stderr)
    pinned.sort(key=lambda s: (s.registry, s.package))
    SOURCES.write_text(json.dumps({"_about": "Pinned by `python -m training.collect pin`; fetched and checked by "
                                             "`python -m training.collect fetch`.",
                                   "sources": [dataclasses.asdict(s) for s in pinned]}, indent=1) + "\n")
    print(f"{len(pinned)} sources pinned in {SOURCES}", file=sys.stderr)
    return 0


def cmd_fetch(data: Path, jobs: int) -> int:
    apt = _apt_options(data / "apt")
    if any(s.registry.startswith("deb") for s in load_sources()):
        subprocess.run(["apt-get", *apt, "update"], check=True, capture_output=True, timeout=600)
        subprocess.run(["apt-get", "-qq", "update"], check=True, capture_output=True, timeout=600)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool, concurrent.futures.ThreadPoolExecutor(1) as apt_pool:
        futures = {(apt_pool if s.registry.startswith("deb") else pool).submit(fetch_one, s, data, apt): s
                   for s in load_sources()}
        for future in concurrent.futures.as_completed(futures):
            try:
                future.result()
            except Exception as exc:
                failed += 1
                print(f"error: {futures[future].package}: {exc}", file=sys.stderr)
    return 1 if failed else 0


def _pairs_of(args: tuple[Source, str]) -> tuple[str, list[dict[str, str]]]:
    source, data = args
    names = excluded_names()
    try:
        return source.package, source_pairs(source, Path(data) / "archives" / source.archive, names)
    except Exception as exc:
        print(f"error: {source.package}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return source.package, []


def cmd_pairs(data: Path, jobs: int) -> int:
    import multiprocessing

    names = excluded_names()
    sources = [s for s in load_sources() if not is_excluded(s.package, names)]
    total = files = 0
    by_lang: dict[str, int] = {}
    # File pairs go to a file of their own: the static table is trained on ``pairs.jsonl`` alone (measured with
    # them, training/README.md), and that file stays what it was, so the shipped table still rebuilds byte for byte.
    with open(data / "pairs.jsonl", "w", encoding="utf-8") as handle, \
            open(data / "file-pairs.jsonl", "w", encoding="utf-8") as file_handle, multiprocessing.Pool(jobs) as pool:
        # In the manifest's order, not as the workers finish: the file (and the table trained on it) is the
        # same on every run.
        for package, pairs in pool.imap(_pairs_of, [(s, str(data)) for s in sources]):
            for pair in pairs:
                (file_handle if pair["kind"] == "file" else handle).write(json.dumps(pair, ensure_ascii=False) + "\n")
                by_lang[pair["lang"]] = by_lang.get(pair["lang"], 0) + 1
            files += sum(1 for p in pairs if p["kind"] == "file")
            total += len(pairs)
            print(f"{package}: {len(pairs)} pairs (total {total})", file=sys.stderr)
    print(json.dumps({"pairs": total, "file_pairs": files,
                      "languages": dict(sorted(by_lang.items(), key=lambda kv: -kv[1]))}))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=("pin", "fetch", "pairs"))
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="archives and pairs (default %(default)s)")
    ap.add_argument("--jobs", type=int, default=8)
    args = ap.parse_args(argv)
    args.data.mkdir(parents=True, exist_ok=True)
    return {"pin": cmd_pin, "fetch": cmd_fetch, "pairs": cmd_pairs}[args.step](args.data, args.jobs)


if __name__ == "__main__":
    sys.exit(main())
