"""Perl method calls reach the subs of packages, the caller's own or inherited.

A Perl ``sub`` in ``package Foo`` is a function to the parser and a method to
its callers: ``$self->f``, ``$this->f`` and ``Foo->f`` run it, and a
subclass (``use parent``, ``use base``, ``@ISA``) calls its base's subs the
same way. ``languages.json`` marks Perl ``functions_are_methods``; before,
every ``$self->`` call resolved to nothing ("not in this repository") and
"what calls X?" found no caller. The sources follow debconf's
``Debconf::FrontEnd`` classes (``$this``, ``use base``) and libwww-style
``use parent -norequire`` modules.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import make_repo
from tests.helpers.graph_helpers import caller_names, callee_names

SOURCES = {
    "lib/Shop/FrontEnd.pm": """package Shop::FrontEnd;
use strict;

sub new {
    my $class = shift;
    my $this = bless {@_}, $class;
    $this->init;
    return $this;
}

sub init {
    my $this = shift;
    $this->{lines} = 0;
}

sub screen_width {
    my $this = shift;
    return $this->{width} || 80;
}

1;
""",
    "lib/Shop/FrontEnd/Teletype.pm": """package Shop::FrontEnd::Teletype;
use strict;
use base qw(Shop::FrontEnd);

sub init {
    my $this = shift;
    $this->SUPER::init(@_);
    $this->{interactive} = 1;
}

sub display {
    my $this = shift;
    my $text = shift;
    my $width = $this->screen_width;
    $this->display_nowrap(substr($text, 0, $width));
}

sub display_nowrap {
    my ($this, $text) = @_;
    print "$text\\n";
}

1;
""",
    "lib/Shop/Report.pm": """package Shop::Report;
use parent -norequire, 'Shop::Printer';

sub screen_width { return 132 }

sub render {
    my $self = shift;
    my $tty = Shop::FrontEnd::Teletype->new(width => $self->screen_width);
    $tty->display("report");
}

1;
""",
}


@pytest.fixture(scope="module")
def perl_repo(tmp_path_factory: pytest.TempPathFactory, embedder) -> Path:
    from hookgraph.sync import read_target, sync

    repo = make_repo(tmp_path_factory.mktemp("perl") / "shop", SOURCES)
    sync(repo, read_target(repo, "head"), embedder=embedder)
    return repo




def test_a_call_on_this_runs_the_sub_of_the_callers_own_package(perl_repo: Path) -> None:
    assert "Shop::FrontEnd::Teletype::display_nowrap" in callee_names(perl_repo, "Shop::FrontEnd::Teletype::display")
    assert caller_names(perl_repo, "Shop::FrontEnd::Teletype::display_nowrap") == {"Shop::FrontEnd::Teletype::display"}


def test_an_inherited_sub_is_the_base_class_one_not_a_namesake(perl_repo: Path) -> None:
    # Teletype does not define screen_width; its base Shop::FrontEnd does. Shop::Report's own
    # screen_width is a namesake in a class that is no ancestor of Teletype.
    assert callee_names(perl_repo, "Shop::FrontEnd::Teletype::display") == {
        "Shop::FrontEnd::screen_width", "Shop::FrontEnd::Teletype::display_nowrap"
    }


def test_self_in_a_package_with_its_own_sub_and_a_class_method_call(perl_repo: Path) -> None:
    render = callee_names(perl_repo, "Shop::Report::render")
    assert "Shop::Report::screen_width" in render  # $self->screen_width: its own
    assert "Shop::FrontEnd::screen_width" not in render
    assert "Shop::FrontEnd::new" in render  # Shop::FrontEnd::Teletype->new, inherited


def test_what_calls_an_inherited_sub_answers_from_the_graph(perl_repo: Path) -> None:
    assert caller_names(perl_repo, "Shop::FrontEnd::screen_width") == {"Shop::FrontEnd::Teletype::display"}
