"""Which projects may never train the shipped static embedding (``training/exclude.txt``).

The list names the projects our benchmarks measure answers on: their code (or a vendored copy of it)
in the training pairs would let the model learn the answers. A source is refused when its package
name, its registry-stripped name (``golang-github-spf13-cobra`` -> ``cobra``, ``rust-serde`` ->
``serde``, ``ruby-rack`` -> ``rack``, ``libwww-perl`` -> ``libwww``) or a word of it equals an
excluded name, and a file is skipped when a folder on its path is named after an excluded project
(vendored copies such as ``pip/_vendor/requests``) or is a vendor folder at all.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXCLUDE_FILE = HERE / "exclude.txt"
#: Folders that hold other projects' code, whatever its name.
VENDOR_FOLDERS = {"vendor", "vendored", "_vendor", "third_party", "third-party", "thirdparty", "node_modules",
                  "external", "extern", "deps", "bundled", "3rdparty"}
#: Registry prefixes and suffixes around a project's own name.
_PREFIXES = ("golang-github-", "golang-gopkg-", "golang-golang-x-", "golang-", "rust-", "ruby-", "php-", "python3-",
             "python-", "node-", "lua-", "haskell-", "libphp-", "lib")
_SUFFIXES = ("-perl", "-java", "-dev", "-js", "-go", "-rs", ".js", "js")


def excluded_names(path: Path = EXCLUDE_FILE) -> set[str]:
    """Every name the list excludes, lowercased: each slug, its owner-less name, and each package name."""
    names: set[str] = set()
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip().lower()
        if not line:
            continue
        line = re.sub(r"\s*\(.*\)$", "", line)  # "tomcat (examples)"
        names.add(line)
        if "/" in line:
            owner, name = line.rsplit("/", 1)
            names.add(name)
            if not line.startswith("@"):
                names.add(name.removesuffix(".js").removesuffix(".nvim").removesuffix(".net"))
        names.add(line.lstrip("@"))
    return {n for n in names if n}


def name_forms(package: str) -> set[str]:
    """The forms a package's name can match an excluded name by: itself, stripped, and its words."""
    name = package.lower().strip()
    forms = {name, name.lstrip("@"), re.sub(r"[0-9.]+$", "", name)}
    if "/" in name:
        forms.add(name.rsplit("/", 1)[1])
    stripped = name.rsplit("/", 1)[-1]
    for prefix in _PREFIXES:
        if stripped.startswith(prefix) and len(stripped) > len(prefix) + 1:
            stripped = stripped[len(prefix):]
            break
    for suffix in _SUFFIXES:
        if stripped.endswith(suffix) and len(stripped) > len(suffix) + 1:
            stripped = stripped[: -len(suffix)]
            break
    forms.add(stripped)
    forms.add(re.sub(r"[0-9.]+$", "", stripped))  # libuv1 -> libuv, lua5.4 -> lua
    forms.add(stripped.removesuffix("lib"))  # fmtlib -> fmt
    # golang-github-OWNER-NAME: the last word is the project's name, OWNER-NAME its slug.
    words = re.split(r"[-_.]", stripped)
    forms.update(words)
    forms.update("-".join(words[i:]) for i in range(len(words)))
    forms.update("/".join((words[0], "-".join(words[1:]))) for _ in [0] if len(words) > 1)
    return {f for f in forms if f}


#: Words of a package name too generic to decide alone (``libjson-perl`` is no copy of nlohmann/json,
#: ``commons-text`` none of a "text" project); the whole stripped name still decides.
GENERIC_WORDS = {"json", "lib", "core", "common", "commons", "server", "client", "http", "text", "x", "go", "js",
                 "the", "io", "net", "tools", "sys", "utils", "util", "parser", "types", "test", "simple", "1",
                 "5", "v3", "compiler", "view", "state", "model", "toolkit", "orm", "framework"}


def is_excluded(package: str, names: set[str] | None = None) -> str | None:
    """The excluded name ``package`` matches, or None."""
    names = excluded_names() if names is None else names
    whole = package.lower().strip()
    stripped_forms = name_forms(package)
    for form in sorted(stripped_forms):
        if form in GENERIC_WORDS and form != whole:
            continue
        if form in names:
            return form
    return None


def skipped_path(path: str, names: set[str]) -> bool:
    """A file inside a vendor folder or a folder named after an excluded project (a vendored copy)."""
    folders = [part.lower() for part in re.split(r"[\\/]", path)[:-1]]
    return any(part in VENDOR_FOLDERS or (part in names and part not in GENERIC_WORDS) for part in folders)
