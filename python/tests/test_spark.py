"""PySpark in local[2]: canonicalize, dedup and examples/spark_dedup.py
against the CLI's dedup."""

import csv
import io
import os
import sys
import pytest

from conftest import DATA, ROOT

from pyspark.sql import SparkSession

from irinorm.spark import canonicalize, dedup  # noqa: E402

sys.path.insert(0, str(ROOT / "python" / "examples"))
import spark_dedup  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("irinorm-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def cli_dedup(cli, *args):
    out = cli("dedup", "--quiet", *args).decode()
    return list(csv.DictReader(io.StringIO(out)))


def test_example_script_equals_cli_dedup(spark, cli, tmp_path):
    sample = DATA / "kasztp.txt"
    out = tmp_path / "out"
    spark_dedup.main([str(sample), str(out), "--level", "scheme"], spark=spark)
    got = []
    for part in sorted(out.glob("part-*.csv")):
        got += list(csv.DictReader(part.open(encoding="utf-8", newline="")))
    expected = cli_dedup(cli, "--level", "scheme", sample)
    assert len(expected) > 40_000
    assert sorted((r["canonical"], int(r["count"])) for r in got) == sorted(
        (r["canonical"], int(r["count"])) for r in expected
    )
    # The example is the first line with that key, as in the CLI.
    assert {r["canonical"]: r["example"] for r in got} == {
        r["canonical"]: r["example"] for r in expected
    }


def test_dedup_protocol_and_surt_equal_cli(spark, cli, tmp_path):
    sample = DATA / "isaacs_files.txt"
    df = spark_dedup.read(spark, str(sample), "url")
    for args in (["--level", "protocol"], ["--level", "syntax", "--form", "surt"]):
        opts = dict(zip((a.lstrip("-") for a in args[::2]), args[1::2]))
        got = dedup(df, "url", **opts).collect()
        expected = cli_dedup(cli, *args, sample)
        assert sorted((r["canonical"], r["count"], r["example"]) for r in got) == sorted(
            (r["canonical"], int(r["count"]), r["example"]) for r in expected
        ), args


def test_dedup_order_by(spark):
    df = spark.createDataFrame(
        [("HTTP://a.example/", 3), ("http://a.example:80/", 1), ("http://A.EXAMPLE", 2), ("bad url", 0), (None, 5)],
        "url string, t int",
    )
    rows = {r["canonical"]: (r["count"], r["example"]) for r in dedup(df, "url", order_by="t").collect()}
    assert rows == {"http://a.example/": (3, "http://a.example:80/")}
    first = dedup(df, "url").collect()
    assert [(r["count"], r["example"]) for r in first] == [(3, "HTTP://a.example/")]


def test_canonicalize_columns_nulls_errors(spark):
    df = spark.createDataFrame(
        [(1, "HTTPS://www.Example.com/index.html?utm_source=x"), (2, None), (3, "http://a.example/%zz")],
        "id int, url string",
    )
    out = canonicalize(df, "url", level="protocol", output="key", error="why", rules="+strip-www,+strip-index")
    assert out.columns == ["id", "url", "key", "why"]
    rows = {r["id"]: (r["key"], r["why"]) for r in out.collect()}
    assert rows[1] == ("https://example.com/", None)
    assert rows[2] == (None, None)
    assert rows[3][0] is None and rows[3][1].startswith("invalid percent-encoding")
    with pytest.raises(ValueError):
        canonicalize(df, "url", level="nope")
    with pytest.raises(ValueError):
        canonicalize(df, "nope")


def test_rejects_count_equals_the_clis(spark, cli, tmp_path):
    from irinorm.spark import rejects

    sample = DATA / "kasztp.txt"
    df = spark_dedup.read(spark, str(sample), "url")
    bad = rejects(df, "url", level="scheme").collect()
    listed = tmp_path / "rejects.csv"
    cli("dedup", "--quiet", "--rejects", listed, sample)
    expected = list(csv.DictReader(listed.open(encoding="utf-8", newline="")))
    assert len(expected) > 0
    assert len(bad) == len(expected)
    assert sorted(r["error"] for r in bad) == sorted(r["error"] for r in expected)
    # Blank and null references are not rejects; the rows keep their columns.
    df = spark.createDataFrame([("a", "http://a/"), ("b", " "), ("c", None), ("d", "x y")], ["id", "url"])
    got = rejects(df, "url").collect()
    assert [(r["id"], r["url"]) for r in got] == [("d", "x y")]
    assert got[0]["error"] == "space not allowed in path at byte 1"


def test_example_job_reports_the_rejected_count(spark, cli, tmp_path, capsys):
    sample = DATA / "kasztp.txt"
    spark_dedup.main([str(sample), str(tmp_path / "out"), "--rejects", str(tmp_path / "bad")], spark=spark)
    err = capsys.readouterr().err
    listed = tmp_path / "rejects.csv"
    cli("dedup", "--quiet", "--rejects", listed, sample)
    n = sum(1 for _ in csv.DictReader(listed.open(encoding="utf-8", newline="")))
    assert f", {n} rejected" in err, err
    rows = []
    for part in sorted((tmp_path / "bad").glob("part-*.csv")):
        rows += list(csv.DictReader(part.open(encoding="utf-8", newline="")))
    assert len(rows) == n and all(r["error"] for r in rows)


def test_spark_links_sums_the_edges_of_each_file(spark):
    import irinorm
    from irinorm.spark import links

    wat = str(ROOT / "tests" / "data" / "archive" / "pages.wat.gz")
    df = spark.createDataFrame([(wat,), (wat,)], ["path"])
    got = {(r["source"], r["target"]): r["count"] for r in links(df).collect()}
    want = {(s, t): 2 * int(c) for s, t, c in irinorm.links(wat)}
    assert got == want
    hosts = {(r["source"], r["target"]) for r in links(df, hosts=True).collect()}
    assert hosts == {(s, t) for s, t, _ in irinorm.links(wat, hosts=True)}


def test_unseen_anti_join_equals_cli_dedup_seen(spark, cli, tmp_path):
    """The Spark recipe of the URL-seen test (a left anti-join of a round's
    keys against a Parquet table of the keys seen) writes the rows
    `irinorm dedup --seen` writes."""
    from irinorm.spark import unseen

    lines = (DATA / "isaacs_files.txt").read_text(encoding="utf-8").splitlines()
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("\n".join(lines[: len(lines) * 2 // 3]) + "\n", encoding="utf-8")
    second.write_text("\n".join(lines[len(lines) // 3 :]) + "\n", encoding="utf-8")
    store = tmp_path / "store"
    cli("dedup", "--quiet", "--seen", store, first)
    expected = cli_dedup(cli, "--seen", store, second)

    table = str(tmp_path / "seen.parquet")
    dedup(spark_dedup.read(spark, str(first), "url"), "url").select("canonical").write.parquet(table)
    got = unseen(dedup(spark_dedup.read(spark, str(second), "url"), "url"), spark.read.parquet(table))
    got = got.collect()
    assert 0 < len(expected) < len(lines) // 2
    assert sorted((r["canonical"], r["count"], r["example"]) for r in got) == sorted(
        (r["canonical"], int(r["count"]), r["example"]) for r in expected
    )
