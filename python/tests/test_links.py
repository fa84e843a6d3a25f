"""irinorm.links against the CLI's `irinorm links` on the archive fixtures,
and irinorm.spark.links in local[2] against both."""

import csv
import io
import subprocess

from conftest import ROOT, cli_path

import irinorm

ARCHIVE = ROOT / "tests" / "data" / "archive"


def cli_rows(*args):
    out = subprocess.run([str(cli_path()), "links", "--quiet", *map(str, args)],
                         check=True, capture_output=True, text=True).stdout
    rows = csv.reader(io.StringIO(out))
    next(rows)
    return [tuple(r) for r in rows]


def test_links_equals_the_cli_on_a_warc_and_a_wat():
    for name in ("whirlwind.warc.gz", "pages.wat.gz"):
        path = ARCHIVE / name
        assert irinorm.links(path) == cli_rows(path)
        assert irinorm.links(path, hosts=True) == cli_rows("--hosts", path)
        assert irinorm.links(path, targets=True, level="protocol") == cli_rows(
            "--targets", "--level", "protocol", path)


def test_links_to_a_file_returns_the_counts(tmp_path):
    out = tmp_path / "edges.csv"
    counts = irinorm.links([ARCHIVE / "pages.wat.gz"], output=out, threads=1, memory=1 << 16)
    assert counts["accepted"] + counts["rejected"] == counts["links"]
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["source", "target", "count"]
    assert len(rows) - 1 == counts["edges"]
