"""How a written type is read for the graph: its own name and its type arguments (hookgraph.search.declared)."""

from __future__ import annotations

import pytest

from hookgraph.parse.written_types import type_names


@pytest.mark.parametrize(("written", "names"), [
    ("scoped_ptr<grimoire::LoudsTrie>", ("scoped_ptr", ["LoudsTrie"])),
    ("const Keyset", ("Keyset", [])),
    ("*RouterGroup", ("RouterGroup", [])),
    ("&mut Handle", ("Handle", [])),
    ("Arc<Mutex<Inner>>", ("Arc", ["Mutex"])),
    ("Map<String, List<Row>>", ("Map", ["String", "List"])),
    ("HttpRequest?", ("HttpRequest", [])),
    ("sync.Pool", ("Pool", [])),
    ("io.ktor.client.HttpClient", ("HttpClient", [])),
    ("List[T]", ("List", ["T"])),
    ("Optional[AbstractResolver]", ("AbstractResolver", [])),
    ("WebSocketWriter | None", ("WebSocketWriter", [])),
    ('"HttpParser"', ("HttpParser", [])),
])
def test_a_type_is_read_as_its_name_and_its_arguments(written: str, names: tuple[str, list[str]]) -> None:
    assert type_names(written) == names


@pytest.mark.parametrize("written", ["[]string", "map[string]int", "(Int) -> Unit", "Router | Queue", "string[]",
                                     "(req: Request) => void", ""])
def test_what_names_no_one_class_is_not_read(written: str) -> None:
    assert type_names(written) is None
