"""How ``training.collect fetch`` asks apt for exactly the pinned Debian archive (from a clean cache)."""

from __future__ import annotations

from training.collect import Source, debian_version_of, deb_spec, load_sources

#: Versions as bookworm's source index lists them (``apt-cache showsrc``).
ZLIB = ["1:1.2.13.dfsg-1"]
XZ = ["5.4.1-1+deb12u1", "5.4.1-0.2"]


def test_a_source_package_is_found_by_the_upstream_version_its_tarball_was_pinned_by() -> None:
    assert debian_version_of("1.2.13.dfsg", ZLIB) == "1:1.2.13.dfsg-1"  # an epoch and a revision around it
    assert debian_version_of("5.4.1", XZ) == "5.4.1-1+deb12u1"  # the first listed wins
    assert debian_version_of("3.4.1+ds", ["3.4.1+ds-2"]) == "3.4.1+ds-2"
    assert debian_version_of("1.0-rc1", ["1.0-rc1"]) == "1.0-rc1"  # a native package: its version whole
    assert debian_version_of("1.2.12", ZLIB) is None  # not in the index: apt is asked as pinned and says so


def test_a_binary_package_with_an_epoch_is_asked_for_as_apt_writes_its_version() -> None:
    """The pin read a .deb's version from its file name, where apt writes an epoch's ':' as '%3a'."""
    debs = [s for s in load_sources() if s.registry == "deb"]
    fasthttp = next(s for s in debs if s.package == "golang-github-valyala-fasthttp-dev")
    assert fasthttp.version == "1%3a1.31.0-4"  # as pinned
    assert deb_spec(fasthttp) == "golang-github-valyala-fasthttp-dev=1:1.31.0-4"
    for source in debs:
        assert "%" not in deb_spec(source), source
    assert deb_spec(Source(registry="deb", package="libfoo-dev", language="c", version="")) == "libfoo-dev"
