"""Shared fixtures: the repository root, its data/ samples and the CLI."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SAMPLES = sorted(p for p in DATA.iterdir() if p.suffix in (".txt", ".csv"))


def cli_path() -> Path:
    """The `irinorm` binary: $IRINORM_BIN, else the workspace's debug or release build
    (in $CARGO_TARGET_DIR when it is set, as cargo does)."""
    env = os.environ.get("IRINORM_BIN")
    if env:
        return Path(env)
    target = ROOT / os.environ.get("CARGO_TARGET_DIR", "target")
    for profile in ("debug", "release"):
        p = target / profile / "irinorm"
        if p.exists():
            return p
    raise FileNotFoundError("no irinorm binary: run `cargo build` or set IRINORM_BIN")


@pytest.fixture(scope="session")
def cli():
    path = cli_path()

    def run(*args, stdin=None):
        return subprocess.run(
            [str(path), *map(str, args)],
            input=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            check=True,
        ).stdout

    return run


def lines_of(path: Path) -> list:
    """The lines of a sample as the CLI reads them: LF or CRLF, a leading
    UTF-8 BOM ignored, an unterminated last line kept."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [ln[:-1].decode() if ln.endswith(b"\r") else ln.decode() for ln in lines]
