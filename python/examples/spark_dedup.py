"""Deduplicate a file of URLs by their irinorm key, with Spark.

    spark-submit --master local[2] python/examples/spark_dedup.py \\
        --level scheme urls.txt out/        # text: one URL per line
    spark-submit python/examples/spark_dedup.py --column url \\
        --order-by fetch_time links.parquet out/ --format parquet

Writes one row per key: canonical, count, example (the first line with that
key, or the first by --order-by), the columns of `irinorm dedup`'s CSV
without first_file/first_line. Text input is read like the CLI reads it:
lines end at LF (a CR before it is dropped) and a UTF-8 BOM that starts
a line is dropped (the CLI drops it at the start of a file only). Input
whose name ends in .parquet is read as Parquet. Every executor needs the irinorm wheel installed.
A summary goes to stderr (rows read, unique keys, rejected rows); --rejects DIR
writes the rejected rows with their error as CSV, as the CLI's --rejects does.
"""

import argparse
import sys


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", help="a text file (one URL per line) or Parquet file/dir")
    p.add_argument("output", help="output directory")
    p.add_argument("--column", default="value", help="URL column of Parquet input")
    p.add_argument("--order-by", help="column that defines the first example")
    p.add_argument("--level", default="scheme", choices=["string", "syntax", "scheme", "protocol"])
    p.add_argument("--form", default="uri", choices=["uri", "iri", "surt"])
    p.add_argument("--mode", default="strict", choices=["strict", "leiri", "web"])
    p.add_argument("--rules", help="protocol-rung rules, e.g. +sort-query")
    p.add_argument("--format", default="csv", choices=["csv", "parquet"])
    p.add_argument("--rejects", help="write the rejected rows and their error here (CSV)")
    return p.parse_args(argv)


def read(spark, path, column):
    from pyspark.sql import functions as F

    if path.rstrip("/").endswith(".parquet"):
        return spark.read.parquet(path)
    lines = spark.read.option("lineSep", "\n").text(path)
    # CR of CRLF, and the BOM the CLI ignores at the start of a file.
    return lines.select(F.regexp_replace(F.col("value"), "^\ufeff|\r$", "").alias(column))


def main(argv=None, spark=None):
    from pyspark.sql import SparkSession

    from irinorm.spark import dedup, rejects

    args = parse_args(sys.argv[1:] if argv is None else argv)
    spark = spark or SparkSession.builder.appName("irinorm dedup").getOrCreate()
    df = read(spark, args.input, args.column)
    opts = {"level": args.level, "form": args.form, "mode": args.mode}
    if args.rules:
        opts["rules"] = args.rules
    rows = dedup(df, args.column, order_by=args.order_by, **opts)
    writer = rows.write.mode("overwrite")
    if args.format == "csv":
        writer.option("header", True).option("escape", '"').csv(args.output)
    else:
        writer.parquet(args.output)
    bad = rejects(df, args.column, **opts)
    if args.rejects:
        bad.write.mode("overwrite").option("header", True).option("escape", '"').csv(args.rejects)
    print(
        f"irinorm: {df.count()} rows: {rows.count()} unique keys, {bad.count()} rejected",
        file=sys.stderr,
    )
    return rows


if __name__ == "__main__":
    main()
