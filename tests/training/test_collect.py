"""How ``training.collect fetch`` asks apt for exactly the pinned Debian archive (from a clean cache)."""

from __future__ import annotations

import json
from urllib.parse import unquote

from training.collect import SOURCES, debian_version_of

#: Versions as bookworm's source index lists them (``apt-cache showsrc``).
ZLIB = ["1:1.2.13.dfsg-1"]
XZ = ["5.4.1-1+deb12u1", "5.4.1-0.2"]


def test_a_source_package_is_found_by_the_upstream_version_its_tarball_was_pinned_by() -> None:
    assert debian_version_of("1.2.13.dfsg", ZLIB) == "1:1.2.13.dfsg-1"  # an epoch and a revision around it
    assert debian_version_of("5.4.1", XZ) == "5.4.1-1+deb12u1"  # the first listed wins
    assert debian_version_of("3.4.1+ds", ["3.4.1+ds-2"]) == "3.4.1+ds-2"
    assert debian_version_of("1.0-rc1", ["1.0-rc1"]) == "1.0-rc1"  # a native package: its version whole
    assert debian_version_of("1.2.12", ZLIB) is None  # not in the index: apt is asked as pinned and says so


def test_every_pinned_binary_package_version_is_one_apt_takes_once_unquoted() -> None:
    """The pin read a .deb's version from its file name, where apt writes an epoch's ':' as '%3a'."""
    debs = [s for s in json.loads(SOURCES.read_text())["sources"] if s["registry"] == "deb"]
    with_epoch = [s for s in debs if "%3a" in s["version"]]
    assert with_epoch, "the manifest pins packages with an epoch; this test guards how they are asked for"
    for source in debs:
        version = unquote(source["version"])
        assert "%" not in version and version.count(":") <= 1, source
