"""The file unit, and its text: the path, what the file defines (class-like names with their members),
what it exports, and the first sentence of its doc.

One fingerprint for every kind of file (code, embedded blocks, document sections), so a file is
found by what it holds, whichever parser read it; one :func:`file_unit` builds the unit every parser
puts first.
"""

from __future__ import annotations

from .text import _basename, _first_sentence
from .units import CodeUnit

FINGERPRINT_NAMES_MAX = 40

#: Members listed after a top-level definition in its file's fingerprint.
FINGERPRINT_MEMBERS_MAX = 16



def file_unit(path: str, language: str, line_count: int, text: str, docstring: str = "") -> CodeUnit:
    """The unit that stands for the whole file (kind ``file``, qualname the path), first in every parse."""
    return CodeUnit(path=path, kind="file", name=_basename(path), qualname=path, start_line=1, end_line=line_count,
                    language=language, docstring=docstring, text=text)

def _with_members(top_names: list[str], units: list[CodeUnit]) -> list[str]:
    """Top-level names, each class-like one followed by its members' names:
    ``InterceptorManager (use, eject, clear, forEach)``, so the file unit says
    what its classes do, not only what they are called."""
    members: dict[str, dict[str, None]] = {}
    for u in units:
        if u.parent is not None:
            members.setdefault(u.parent, {})[u.name] = None
    out = []
    for name in top_names:
        listed = list(members.get(name, ()))
        if listed:
            shown = listed[:FINGERPRINT_MEMBERS_MAX]
            more = len(listed) - len(shown)
            name = f"{name} ({', '.join(shown)}{f', +{more} more' if more > 0 else ''})"
        out.append(name)
    return out


def _fingerprint(path: str, label: str, names: list[str], doc: str, exports: list[str] | None = None) -> str:
    parts = [path]
    for what, listed in ((label, names), ("exports", exports or [])):
        if listed:
            shown = listed[:FINGERPRINT_NAMES_MAX]
            more = len(listed) - len(shown)
            parts.append(f"{what}: " + ", ".join(shown) + (f" (+{more} more)" if more > 0 else ""))
    sentence = _first_sentence(doc) if doc else ""
    if sentence:
        parts.append(sentence)
    return "\n".join(parts)
