"""How the "minified" rule (``hookgraph.parse.filters._looks_minified``) classifies real files on this machine.

Issue 33: a small hand-written file with one long line (a base64 constant
beside two functions) was skipped as minified. This counts, over the files
installed here, the real bundles (``*.min.js``, ``*.min.css``, ``*.bundle.js``)
the rule calls minified and the hand-written sources (.py, .c, .h, .go, .js,
.ts, .rb, .java under the Python, C and Go installations) it wrongly does,
each distinct content once, with the code density of their long lines.

    python benchmarks/minified_rule.py [--roots DIR ...]

Reads files only; a few seconds to a minute, depending on what is installed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hookgraph.parse.filters import DEFAULT_MAX_BYTES, _code_density_of_long_lines, _looks_minified  # noqa: E402

BUNDLE_ROOTS = ["/usr", "/opt", "/root", sys.prefix]
SOURCE_ROOTS = ["/usr/lib/python3", "/usr/include", "/usr/local/go", sys.prefix]
BUNDLES = (".min.js", ".min.css", ".bundle.js")
SOURCES = (".py", ".c", ".h", ".go", ".js", ".ts", ".rb", ".java")


def distinct_files(roots: list[str], suffixes: tuple[str, ...], skip_bundles: bool) -> Iterator[tuple[str, bytes]]:
    seen: set[bytes] = set()
    for root in roots:
        for directory, _dirs, names in os.walk(root):
            if skip_bundles and "/share/doc/" in directory:  # generated documentation assets, not sources
                continue
            for name in names:
                if not name.endswith(suffixes) or (skip_bundles and (".min." in name or "bundle" in name)):
                    continue
                path = os.path.join(directory, name)
                try:
                    data = open(path, "rb").read(DEFAULT_MAX_BYTES + 1)
                except OSError:
                    continue
                if len(data) > DEFAULT_MAX_BYTES or b"\0" in data[:8192]:
                    continue
                digest = hashlib.md5(data, usedforsecurity=False).digest()
                if digest not in seen:
                    seen.add(digest)
                    yield path, data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", nargs="*", help="look only here (both kinds)")
    args = parser.parse_args()
    for label, roots, suffixes, skip in (("bundles", BUNDLE_ROOTS, BUNDLES, False),
                                         ("hand-written", SOURCE_ROOTS, SOURCES, True)):
        flagged = []
        total = 0
        for path, data in distinct_files(args.roots or roots, suffixes, skip):
            total += 1
            if _looks_minified(data):
                flagged.append((_code_density_of_long_lines(data), path))
        print(f"{label}: {len(flagged)} of {total} called minified")
        for density, path in sorted(flagged)[:10 if label == "bundles" else 50]:
            print(f"  {density:.3f}  {path}")


if __name__ == "__main__":
    main()
