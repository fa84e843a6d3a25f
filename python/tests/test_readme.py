"""The README's Python section as a newcomer runs it: every ```python block,
as written, from the repository root (the examples read
python/examples/links.csv by that relative path), each in a fresh namespace;
and the set-up block names every package those examples import."""

import re
import sys

import pytest

from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", README, flags=re.S | re.M)
SETUP = re.search(r"^```sh needs=python\n(.*?)^```", README, flags=re.S | re.M).group(1)


def test_the_set_up_installs_what_the_examples_import():
    imported = set()
    for block in BLOCKS:
        for m in re.finditer(r"^(?:import|from) ([\w.]+(?:, [\w.]+)*)", block, flags=re.M):
            imported |= {name.split(".")[0] for name in m.group(1).split(", ")}
    wanted = {"polars", "duckdb", "pyspark", "irinorm"}
    assert wanted <= imported, imported
    for pkg in imported - {"irinorm"}:
        assert re.search(rf"pip install [^\n]*\b{pkg}\b", SETUP), f"{pkg} is not installed by: {SETUP}"
    assert "pandas" in SETUP and "maturin develop" in SETUP


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs_as_written(block, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    if "pyspark" in block:
        monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
        monkeypatch.setenv("PYSPARK_DRIVER_PYTHON", sys.executable)
        monkeypatch.setenv("SPARK_LOCAL_IP", "127.0.0.1")
    exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    if "rejects(" in block:
        # The figure the README states, as the CLI counts it.
        assert "7 unique keys, 2 rejected" in out, out
