"""Ruby, PHP, Lua, shell, Perl, R, Julia, Elixir and Erlang on real source.

Every file comes from a real project on a registry this machine reaches
(tests/fixtures/languages/<lang>/SOURCE.txt names the package, version and
checksum). The tests pin units with their qualified names and lines, some
signatures and docstrings, and an edge of every kind the language has.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hookgraph.parse import parse_file
from hookgraph.parse.units import ParsedFile
from tests.helpers.parse_helpers import edges_from, has_edge, unit, units_of
from tests.helpers.parse_helpers import no_parse_fallback  # noqa: F401 (an autouse fixture: imported, it applies here)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "languages"


def parsed(relative: str) -> ParsedFile:
    pf = parse_file(relative, (FIXTURES / relative).read_bytes())
    assert pf is not None, relative
    return pf




# --------------------------------------------------------------------------- Ruby


def test_ruby_modules_classes_and_methods_nest_with_double_colons():
    pf = parsed("ruby/lib/retriable/exponential_backoff.rb")
    assert pf.language == "ruby" and not pf.had_errors
    assert units_of(pf) == {
        ("module", "Retriable", 1, 45),
        ("class", "Retriable::ExponentialBackoff", 2, 44),
        ("method", "Retriable::ExponentialBackoff::initialize", 13, 24),
        ("method", "Retriable::ExponentialBackoff::intervals", 26, 34),
        ("method", "Retriable::ExponentialBackoff::randomize", 38, 43),
    }
    assert unit(pf, "Retriable::ExponentialBackoff::randomize").signature == "def randomize(interval)"
    assert has_edge(pf, "contains", "Retriable", "Retriable::ExponentialBackoff")
    assert has_edge(pf, "contains", "Retriable::ExponentialBackoff", "Retriable::ExponentialBackoff::randomize")
    # a bare call (self's own method) and a call on a receiver
    assert has_edge(pf, "calls", "Retriable::ExponentialBackoff::intervals", "randomize", "randomize", 33)
    assert has_edge(pf, "calls", "Retriable::ExponentialBackoff::intervals", "new", "Array.new", 27)


def test_ruby_module_functions_requires_and_receivers():
    pf = parsed("ruby/lib/retriable.rb")
    assert ("function", "Retriable::retriable", 25, 75) in units_of(pf)
    assert edges_from(pf, "imports", pf.path) == {"timeout", "retriable/config", "retriable/exponential_backoff", "retriable/version"}
    assert has_edge(pf, "calls", "Retriable::retriable", "timeout", "Timeout.timeout", 60)
    assert has_edge(pf, "calls", "Retriable::with_context", "retriable", "retriable", 22)
    kernel = parsed("ruby/lib/retriable/core_ext/kernel.rb")
    assert has_edge(kernel, "imports", kernel.path, "../../retriable", line=1)  # require_relative
    assert has_edge(kernel, "calls", "Kernel::retriable", "retriable", "Retriable.retriable", 5)


def test_ruby_superclass_mixins_and_comment_docs():
    pf = parsed("ruby/lib/linguist/file_blob.rb")
    assert units_of(pf) == {
        ("module", "Linguist", 4, 48),
        ("class", "Linguist::FileBlob", 8, 47),
        ("method", "Linguist::FileBlob::initialize", 17, 20),
        ("method", "Linguist::FileBlob::mode", 25, 27),
        ("method", "Linguist::FileBlob::symlink?", 29, 32),
        ("method", "Linguist::FileBlob::data", 37, 39),
        ("method", "Linguist::FileBlob::size", 44, 46),
    }
    blob = unit(pf, "Linguist::FileBlob")
    assert blob.signature == "class FileBlob < Blob"
    assert blob.docstring.startswith("A FileBlob is a wrapper around a File object")
    assert unit(pf, "Linguist::FileBlob::mode").docstring == "Public: Read file permissions\n\nReturns a String like '100644'"
    assert has_edge(pf, "inherits", "Linguist::FileBlob", "Blob", line=8)
    assert has_edge(pf, "inherits", "Linguist::FileBlob", "BlobHelper", line=9)  # include BlobHelper
    assert "include" not in edges_from(pf, "calls", "Linguist::FileBlob")  # a declaration, not a call
    assert has_edge(pf, "calls", "Linguist::FileBlob::mode", "stat", "File.stat", 26)


# --------------------------------------------------------------------------- PHP


def test_php_namespace_statement_prefixes_classes_and_methods():
    pf = parsed("php/Console/Helper/FormatterHelper.php")
    assert pf.language == "php" and not pf.had_errors
    ns = "Symfony\\Component\\Console\\Helper\\"
    assert units_of(pf) == {
        ("class", ns + "FormatterHelper", 21, 92),
        ("method", ns + "FormatterHelper::formatSection", 28, 31),
        ("method", ns + "FormatterHelper::formatBlock", 40, 67),
        ("method", ns + "FormatterHelper::truncate", 74, 83),
        ("method", ns + "FormatterHelper::getName", 88, 91),
    }
    truncate = unit(pf, ns + "FormatterHelper::truncate")
    assert truncate.signature == "public function truncate(string $message, int $length, string $suffix = '...')"
    assert truncate.docstring.startswith("Truncates a message to the given length.")  # PHPDoc
    assert truncate.parent == ns + "FormatterHelper"
    assert has_edge(pf, "contains", pf.path, ns + "FormatterHelper")  # the namespace is not a unit
    assert has_edge(pf, "inherits", ns + "FormatterHelper", "Helper", line=21)
    assert has_edge(pf, "imports", pf.path, "Symfony\\Component\\Console\\Formatter\\OutputFormatter", line=14)
    assert has_edge(pf, "calls", ns + "FormatterHelper::truncate", "width", "self::width", 76)
    assert has_edge(pf, "calls", ns + "FormatterHelper::formatBlock", "escape", "OutputFormatter::escape", 49)


def test_php_traits_interfaces_and_member_calls():
    pf = parsed("php/Console/Command/LockableTrait.php")
    ns = "Symfony\\Component\\Console\\Command\\"
    assert units_of(pf) == {
        ("trait", ns + "LockableTrait", 25, 69),
        ("method", ns + "LockableTrait::lock", 33, 57),
        ("method", ns + "LockableTrait::release", 62, 68),
    }
    assert has_edge(pf, "calls", ns + "LockableTrait::lock", "getName", "$this->getName", 49)
    assert has_edge(pf, "calls", ns + "LockableTrait::lock", "isSupported", "SemaphoreStore::isSupported", 43)
    assert has_edge(pf, "calls", ns + "LockableTrait::lock", "FlockStore", "FlockStore", 46)  # new FlockStore()
    helper = parsed("php/Console/Helper/Helper.php")
    assert has_edge(helper, "inherits", "Symfony\\Component\\Console\\Helper\\Helper", "HelperInterface", line=22)
    interface = parsed("php/Console/Helper/HelperInterface.php")
    assert ("interface", "Symfony\\Component\\Console\\Helper\\HelperInterface", 19, 39) in units_of(interface)
    assert ("method", "Symfony\\Component\\Console\\Helper\\HelperInterface::getName", 38, 38) in units_of(interface)


# --------------------------------------------------------------------------- Lua


def test_lua_table_functions_are_methods_of_their_table():
    pf = parsed("lua/pl/Map.lua")
    assert pf.language == "lua" and not pf.had_errors
    assert units_of(pf) == {
        ("method", "Map._init", 26, 33),
        ("function", "makelist", 36, 38),
        ("method", "Map.iter", 47, 49),
        ("method", "Map.items", 52, 56),
        ("method", "Map.setdefault", 62, 69),
        ("method", "Map.set", 81, 83),
        ("method", "Map.get", 88, 90),
        ("method", "Map.getvalues", 97, 99),
        ("method", "Map.__eq", 109, 112),
        ("method", "Map.__tostring", 116, 118),
    }
    setdefault = unit(pf, "Map.setdefault")
    assert setdefault.signature == "function Map:setdefault(key, default)"
    assert setdefault.docstring.startswith("set a value in the map if it doesn't exist yet.")  # LDoc ---
    assert pf.units[0].docstring.startswith("A Map class.")
    assert edges_from(pf, "imports", pf.path) == {"pl.tablex", "pl.utils", "pl.pretty", "pl.class"}
    assert has_edge(pf, "imports", "makelist", "pl.List", line=37)
    assert has_edge(pf, "calls", "Map.setdefault", "set", "self:set", 67)
    assert has_edge(pf, "calls", "Map.items", "pairmap", "tablex.pairmap", 53)
    assert has_edge(pf, "calls", "Map.items", "makelist", "makelist", 53)
    assert has_edge(pf, "contains", pf.path, "Map.set")


# --------------------------------------------------------------------------- shell


def test_shell_functions_commands_and_sourced_files():
    pf = parsed("bash/elixir.sh")
    assert pf.language == "bash" and not pf.had_errors
    assert units_of(pf) == {
        ("function", "readlink_f", 63, 71),
        ("function", "erl_set", 82, 85),
        ("function", "starts_with", 88, 93),
    }
    assert unit(pf, "starts_with").signature == "starts_with ()"
    assert unit(pf, "starts_with").docstring == 'Checks if a string starts with prefix. Usage: starts_with "$STRING" "$PREFIX"'
    assert has_edge(pf, "calls", "readlink_f", "readlink_f", line=67)  # it recurses
    assert has_edge(pf, "calls", "readlink_f", "dirname", line=64)
    assert has_edge(pf, "calls", pf.path, "starts_with", line=179)
    assert "echo" not in edges_from(pf, "calls", "readlink_f")  # builtins that only steer the script
    sourced = parsed("bash/bash_completion.sh")
    assert edges_from(sourced, "imports", sourced.path) == {
        "${XDG_CONFIG_HOME:-$HOME/.config}/bash_completion",
        "/usr/share/bash-completion/bash_completion",
    }


# --------------------------------------------------------------------------- Perl


def test_perl_package_statements_name_their_subs():
    pf = parsed("perl/Try/Tiny.pm")
    assert pf.language == "perl" and not pf.had_errors
    assert units_of(pf) == {
        ("module", "Try::Tiny", 1, 820),
        ("function", "Try::Tiny::try", 38, 135),
        ("function", "Try::Tiny::catch", 137, 148),
        ("function", "Try::Tiny::finally", 150, 161),
        # `{ package Try::Tiny::ScopeGuard; ... }` covers its block only, and names itself in full
        ("module", "Try::Tiny::ScopeGuard", 164, 192),
        ("function", "Try::Tiny::ScopeGuard::_new", 169, 172),
        ("function", "Try::Tiny::ScopeGuard::DESTROY", 174, 191),
    }
    assert unit(pf, "Try::Tiny::try").signature == "sub try (&;@)"
    assert unit(pf, "Try::Tiny::try").docstring == ""  # its comment block ends a blank line above it
    assert has_edge(pf, "contains", "Try::Tiny", "Try::Tiny::try")
    assert has_edge(pf, "contains", "Try::Tiny::ScopeGuard", "Try::Tiny::ScopeGuard::DESTROY")
    assert edges_from(pf, "imports", "Try::Tiny") >= {"Exporter", "Carp", "Sub::Util", "Sub::Name"}
    assert "strict" not in edges_from(pf, "imports", "Try::Tiny")  # pragmas are not modules
    assert has_edge(pf, "calls", "Try::Tiny::try", "_new", "Try::Tiny::ScopeGuard->_new", 81)
    assert has_edge(pf, "calls", "Try::Tiny::catch", "croak", "croak", 140)


def test_perl_use_base_and_method_calls():
    pf = parsed("perl/Debconf/FrontEnd/Teletype.pm")
    package = "Debconf::FrontEnd::Teletype"
    assert ("module", package, 5, 89) in units_of(pf)
    assert ("function", package + "::display_nowrap", 31, 60) in units_of(pf)
    assert has_edge(pf, "inherits", package, "ScreenSize", "Debconf::FrontEnd::ScreenSize", 10)
    assert has_edge(pf, "imports", package, "Debconf::Encoding", line=7)
    assert has_edge(pf, "calls", package + "::display", "display_nowrap", "$this->display_nowrap", 27)
    assert has_edge(pf, "calls", package + "::display_nowrap", "terse", "Debconf::Config->terse", 35)
    assert has_edge(pf, "calls", package + "::init", "init", "$this->SUPER::init", 16)


# --------------------------------------------------------------------------- R


def test_r_functions_are_assignments():
    pf = parsed("r/install2.r")
    assert pf.language == "r" and not pf.had_errors
    assert units_of(pf) == {
        ("function", "install_packages2", 76, 99),  # its inner `capture <- function(e)` is part of it
        ("function", "isMatchingFile", 102, 102),
        ("function", "installArg", 105, 115),
        ("function", "isMatchingFile", 129, 131),  # redefined further down, as the script does
    }
    arg = unit(pf, "installArg")
    assert arg.signature == "installArg <- function(f, lib, rep, dep, iopts, error, skipinstalled, ncpus, method)"
    assert arg.docstring == "helper function which switches to local (ie NULL) repo if matching file is presented"
    assert has_edge(pf, "imports", pf.path, "docopt", line=12)  # library(docopt)
    assert has_edge(pf, "calls", "installArg", "install_packages2", line=106)
    assert has_edge(pf, "calls", "installArg", "isMatchingFile", line=108)
    assert has_edge(pf, "calls", "isMatchingFile", "file.exists", line=102)  # a dot is part of an R name
    assert has_edge(pf, "calls", pf.path, "detectCores", "parallel::detectCores", 70)


# --------------------------------------------------------------------------- Julia


def test_julia_modules_functions_and_docstrings():
    pf = parsed("julia/pyjulia_helper.jl")
    assert pf.language == "julia"
    assert units_of(pf) == {
        ("module", "_PyJuliaHelper", 1, 170),
        ("function", "_PyJuliaHelper.fullnamestr", 25, 25),  # fullnamestr(m) = ...
        ("function", "_PyJuliaHelper.isdefinedstr", 27, 27),
        ("function", "_PyJuliaHelper.completions", 29, 36),
        ("function", "_PyJuliaHelper.prepare_for_pyjulia_call", 43, 95),  # a macro
        ("module", "_PyJuliaHelper.IOPiper", 98, 168),
        ("function", "_PyJuliaHelper.IOPiper.__init__", 104, 108),
        ("function", "_PyJuliaHelper.IOPiper.num_utf8_trailing", 118, 130),
        ("function", "_PyJuliaHelper.IOPiper.pipe_stream", 132, 154),
        ("function", "_PyJuliaHelper.IOPiper.pipe_std_outputs", 159, 166),
    }
    trailing = unit(pf, "_PyJuliaHelper.IOPiper.num_utf8_trailing")
    assert trailing.signature == "function num_utf8_trailing(d::Vector{UInt8})"
    assert "If `d` ends with an incomplete UTF8-encoded character" in trailing.docstring
    assert has_edge(pf, "imports", "_PyJuliaHelper", ".PyCall", line=12)
    assert has_edge(pf, "imports", "_PyJuliaHelper", "walk", ".MacroTools.walk", 14)
    assert has_edge(pf, "calls", "_PyJuliaHelper.IOPiper.pipe_stream", "num_utf8_trailing", line=140)
    assert has_edge(pf, "calls", "_PyJuliaHelper.completions", "completions", "REPL.completions", 30)
    assert has_edge(pf, "contains", "_PyJuliaHelper", "_PyJuliaHelper.IOPiper")


def test_julia_structs_subtypes_and_methods_of_other_modules():
    pf = parsed("julia/string.jl")
    error = unit(pf, "StringIndexError")
    assert (error.kind, error.start_line, error.end_line) == ("struct", 8, 11)
    assert error.docstring.startswith("StringIndexError(str, i)")
    assert has_edge(pf, "inherits", "StringIndexError", "Exception", line=8)  # <: Exception
    showerror = unit(pf, "Base.showerror")  # function Base.showerror(...) adds a method to Base's
    assert (showerror.kind, showerror.start_line, showerror.end_line) == ("method", 14, 26)
    assert has_edge(pf, "calls", "Base.showerror", "thisind", line=18)
    assert not has_edge(pf, "calls", "Base.showerror", "showerror")  # its own name is no call


# --------------------------------------------------------------------------- Elixir


def test_elixir_modules_functions_protocols_and_docs():
    pf = parsed("elixir/example_elixir.ex")
    assert pf.language == "elixir"
    assert units_of(pf) == {
        ("module", "Long.Module.Name", 108, 135),
        ("function", "Long.Module.Name.func", 129, 129),
        ("function", "Long.Module.Name.__before_compile__", 132, 134),
        ("module", "Second.Module", 138, 142),
        ("module", "M", 145, 170),
        ("function", "M.func", 159, 165),
        ("function", "M.m", 167, 169),  # defmacro
        ("interface", "Useless", 220, 223),  # defprotocol
        ("method", "Useless.func1", 221, 221),
        ("method", "Useless.func2", 222, 222),
        ("module", "Useless.Atom", 225, 226),  # defimpl Useless, for: Atom
        ("module", "NotAnError", 229, 231),
    }
    assert unit(pf, "Long.Module.Name").docstring == "Simple module docstring"  # @moduledoc
    assert unit(pf, "Long.Module.Name.func").docstring.startswith("No #{interpolation} of any kind.")  # @doc ~S'''
    assert unit(pf, "M.func").signature == "def func(a, b)"
    assert has_edge(pf, "calls", "M.func", "expand", "Path.expand", 161)
    assert has_edge(pf, "calls", "M.func", "func", "__MODULE__.func", 164)
    assert not edges_from(pf, "calls", "M")  # @spec func(...) and @custom_attr name no call
    assert has_edge(pf, "inherits", "Useless.Atom", "Useless", line=225)
    assert edges_from(pf, "imports", pf.path) == {"Kernel", "Long.Module.Name", "Bitwise"}
    assert has_edge(pf, "contains", "Useless", "Useless.func1")


# --------------------------------------------------------------------------- Erlang


def test_erlang_module_is_the_file_and_prefixes_functions():
    pf = parsed("erlang/ct_master_status.erl")
    assert pf.language == "erlang" and not pf.had_errors
    assert units_of(pf) == {
        ("module", "ct_master_status", 27, 124),
        ("struct", "ct_master_status:state", 39, 39),
        ("function", "ct_master_status:init", 49, 50),
        ("function", "ct_master_status:handle_event", 72, 75),
        ("function", "ct_master_status:handle_call", 87, 89),
        ("function", "ct_master_status:handle_info", 100, 101),
        ("function", "ct_master_status:terminate", 109, 110),
        ("function", "ct_master_status:code_change", 116, 117),
        ("function", "ct_master_status:print", 123, 124),
    }
    module = unit(pf, "ct_master_status")
    assert module.docstring.startswith("doc Logging functionality for Common Test Master.")
    assert has_edge(pf, "inherits", "ct_master_status", "gen_event", line=29)  # -behaviour(gen_event).
    assert has_edge(pf, "imports", "ct_master_status", "ct_event.hrl", line=37)
    assert has_edge(pf, "calls", "ct_master_status:handle_event", "print", line=73)
    assert has_edge(pf, "contains", "ct_master_status", "ct_master_status:init")


def test_erlang_remote_calls_imports_and_licence_headers():
    pf = parsed("erlang/etop_txt.erl")
    assert unit(pf, "etop_txt").docstring == ""  # the Apache licence header right above -module is no doc
    # do_update/2 and do_update/4 are two functions of one name: two units
    updates = [(u.start_line, u.end_line, u.signature) for u in pf.units if u.qualname == "etop_txt:do_update"]
    assert updates == [(56, 58, "do_update(Prev,Config)"), (60, 88, "do_update(Fd,Info,Prev,Config)")]
    assert has_edge(pf, "calls", "etop_txt:do_update", "update", "etop:update", 57)
    assert has_edge(pf, "calls", "etop_txt:do_update", "fwrite", "io:fwrite", 67)
    assert has_edge(pf, "imports", "etop_txt", "loadinfo", "etop:loadinfo", 40)  # -import(etop, [loadinfo/2])
    assert has_edge(pf, "imports", "etop_txt", "etop.hrl", line=27)
    assert "pos_integer" not in edges_from(pf, "calls", "etop_txt:field_widths")  # record field types


# --------------------------------------------------------------------------- files and namespaces


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("lib/a.rb", "ruby"), ("Rakefile", "ruby"), ("app.gemspec", "ruby"), ("src/A.php", "php"),
        ("pl/utils.lua", "lua"), ("bin/run.sh", "bash"), (".bashrc", "bash"), ("lib/Foo.pm", "perl"),
        ("t/basic.t", "perl"), ("R/utils.R", "r"), ("x.r", "r"), ("src/A.jl", "julia"), ("lib/a.ex", "elixir"),
        ("mix.exs", "elixir"), ("src/a.erl", "erlang"), ("include/a.hrl", "erlang"),
    ],
)
def test_script_languages_are_recognised_by_path(path, lang):
    from hookgraph.parse.languages import language_for_path

    assert language_for_path(path) == lang


def test_namespace_statements_cover_up_to_the_next_one_and_blocks_cover_themselves():
    """Two `namespace X;` statements in one file, and the block form `namespace X { ... }`."""
    source = (
        b"<?php\n"
        b"namespace App\\Models;\n"
        b"class User { public function save() {} }\n"
        b"namespace App\\Http;\n"
        b"function route() {}\n"
        b"namespace Lib { class Box {} }\n"
    )
    pf = parse_file("multi.php", source)
    assert units_of(pf) == {
        ("class", "App\\Models\\User", 3, 3),
        ("method", "App\\Models\\User::save", 3, 3),
        ("function", "App\\Http\\route", 5, 5),
        ("class", "Lib\\Box", 6, 6),
    }
    assert {e.source for e in pf.edges if e.kind == "contains" and e.target != "App\\Models\\User::save"} == {"multi.php"}


def test_a_perl_file_ending_in_a_comment_parses():
    """tree-sitter-perl 0.13 loops forever on a bare `#` at the very end of a file; the parser adds a newline."""
    pf = parse_file("lib/End.pm", b"package End;\nsub last_one { 1 }\nreturn 1 #")
    assert units_of(pf) == {("module", "End", 1, 3), ("function", "End::last_one", 2, 2)}
    assert pf.units[0].end_line == 3
