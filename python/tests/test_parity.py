"""keys_arrow equals `irinorm normalize`, byte for byte, on every line of the
bundled data/ samples, at every level and form."""

import csv
import io

import pyarrow as pa
import pytest

import irinorm
from conftest import SAMPLES, lines_of


def _cli_input(path):
    # A .csv is read by the CLI as records; feed it as plain lines on stdin.
    if path.suffix == ".csv":
        return ["-"], path.read_bytes()
    return [path], None


@pytest.mark.parametrize("form", irinorm.FORMS)
@pytest.mark.parametrize("level", irinorm.LEVELS)
@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_keys_arrow_equals_cli(cli, sample, level, form):
    lines = lines_of(sample)
    args, stdin = _cli_input(sample)
    expected = cli("normalize", "--quiet", "--level", level, "--form", form, *args, stdin=stdin)
    canonical, _ = irinorm.Normalizer(level=level, form=form).keys_arrow(pa.array(lines))
    got = "".join((k or "") + "\n" for k in canonical.to_pylist()).encode()
    assert len(lines) > 1000
    if got != expected:
        exp = expected.decode().split("\n")
        diff = [(i + 1, lines[i], exp[i], k) for i, k in enumerate(canonical.to_pylist()) if (k or "") != exp[i]]
        pytest.fail(f"{len(diff)} lines differ, first: {diff[:3]}")


@pytest.mark.parametrize("sample", SAMPLES, ids=[p.name for p in SAMPLES])
def test_errors_equal_cli(cli, sample):
    lines = lines_of(sample)
    args, stdin = _cli_input(sample)
    out = cli("normalize", "--quiet", "--format", "csv", *args, stdin=stdin).decode()
    rows = list(csv.DictReader(io.StringIO(out)))
    canonical, error = irinorm.Normalizer().keys_arrow(pa.array(lines, pa.large_string()))
    assert [r["output"] for r in rows] == [k or "" for k in canonical.to_pylist()]
    assert [r["error"] for r in rows] == [e or "" for e in error.to_pylist()]
    assert any(r["error"] for r in rows) or sample.name != "kasztp.txt"
