"""The seen-set from Python: seen_info and seen_compact read and compact
what `irinorm dedup --seen` writes."""

import pytest

import irinorm
from conftest import DATA


def test_seen_info_and_compact_read_the_clis_seen_set(cli, tmp_path):
    lines = (DATA / "kasztp.txt").read_bytes().splitlines(keepends=True)
    store = tmp_path / "store"
    for i, part in enumerate((lines[:1000], lines[1000:3000], lines[3000:3100])):
        f = tmp_path / f"b{i}.txt"
        f.write_bytes(b"".join(part))
        cli("dedup", "--quiet", "--seen", store, f)
    whole = tmp_path / "all.txt"
    whole.write_bytes(b"".join(lines[:3100]))
    keys = len(cli("dedup", "--quiet", "--columns", "canonical", whole).splitlines()) - 1
    info = irinorm.seen_info(store, verify=True)
    assert info["keys"] == keys > 2000
    assert info["key_options"].startswith("level=scheme form=uri")
    assert info["bytes"] == sum(b for _, _, b in info["files"])
    assert len(info["files"]) >= 2
    compacted = irinorm.seen_compact(store)
    assert compacted["keys"] == keys and len(compacted["files"]) == 1
    assert irinorm.seen_info(store) == compacted


def test_not_a_seen_set_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="no seen-set"):
        irinorm.seen_info(tmp_path / "none")
    with pytest.raises(OSError, match="no seen-set"):
        irinorm.seen_compact(tmp_path)
