"""Polars and DuckDB speak Arrow: keys_arrow reads their columns in place.

These are the README's examples, run as tests.
"""

import pyarrow as pa
import pytest

import irinorm

URLS = [
    "HTTP://Example.COM:80/a/./b",
    "http://example.com/a/b",
    None,
    "http://example.com/a b",
    "http://münchen.de/",
    "http://xn--mnchen-3ya.de",
]


def test_polars_example():
    pl = pytest.importorskip("polars")
    # --- README: Polars ---
    df = pl.DataFrame({"url": URLS})
    canonical, error = irinorm.Normalizer(level="scheme").keys_arrow(df["url"])
    df = df.with_columns(
        canonical=pl.from_arrow(canonical), error=pl.from_arrow(error)
    )
    unique = (
        df.filter(pl.col("canonical").is_not_null())
        .group_by("canonical", maintain_order=True)
        .agg(count=pl.len(), example=pl.col("url").first())
    )
    # --- end ---
    assert unique.rows() == [
        ("http://example.com/a/b", 2, "HTTP://Example.COM:80/a/./b"),
        ("http://xn--mnchen-3ya.de/", 2, "http://münchen.de/"),
    ]
    assert df["error"].to_list()[3] == "space not allowed in path at byte 20"
    assert df["canonical"].null_count() == 2


def test_duckdb_example():
    duckdb = pytest.importorskip("duckdb")
    # --- README: DuckDB ---
    con = duckdb.connect()
    con.execute("create table links(url varchar)")
    con.executemany("insert into links values (?)", [[u] for u in URLS])
    links = con.sql("select url from links").to_arrow_table()
    canonical, error = irinorm.Normalizer().keys_arrow(links["url"])
    keyed = links.append_column("canonical", canonical).append_column("error", error)
    rows = con.sql(
        "select canonical, count(*) as n from keyed "
        "where canonical is not null group by canonical order by canonical"
    ).fetchall()
    # --- end ---
    assert rows == [("http://example.com/a/b", 2), ("http://xn--mnchen-3ya.de/", 2)]
    assert keyed["error"].to_pylist()[3] == "space not allowed in path at byte 20"
    assert isinstance(keyed["canonical"], pa.ChunkedArray)
