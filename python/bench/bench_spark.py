"""Spark local[2]: canonicalize + dedup through irinorm vs a Python UDF.

    python python/bench/bench_spark.py bench-data/c2m.txt

Both pipelines read the same text file, key every line and count the rows
per key (groupBy, then a count that forces the whole job):
* irinorm: `irinorm.spark.dedup` (mapInArrow batches through keys_arrow);
* today's practice: a plain Python UDF calling w3lib's `canonicalize_url`,
  then groupBy().agg(count, first).
Each runs twice (the second, warm run is reported), on one `local[2]`
session.
"""

import os
import sys
import time

# The executors' Python is this one (with irinorm, pyarrow, w3lib).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def main():
    path = sys.argv[1]
    from pyspark.sql import SparkSession, functions as F, types as T

    import irinorm.spark
    import w3lib.url

    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.option("lineSep", "\n").text(path).repartition(4).cache()
    n = df.count()

    def via_irinorm():
        return irinorm.spark.dedup(df, "value").count()

    @F.udf(T.StringType())
    def w3(u):
        try:
            return w3lib.url.canonicalize_url(u)
        except Exception:
            return None

    def via_w3lib():
        return (
            df.withColumn("canonical", w3("value"))
            .where(F.col("canonical").isNotNull())
            .groupBy("canonical")
            .agg(F.count("*").alias("count"), F.first("value").alias("example"))
            .count()
        )

    out = {}
    for name, fn in [("irinorm.spark.dedup", via_irinorm), ("w3lib UDF + groupBy", via_w3lib)]:
        for _ in range(2):
            t = time.perf_counter()
            rows = fn()
            out[name] = (time.perf_counter() - t, rows)
    print(f"{n} lines, local[2]")
    for name, (s, rows) in out.items():
        print(f"{name:<22} {s:8.1f} s  {n / s:>10,.0f} lines/s  {rows} keys")
    a, b = out["irinorm.spark.dedup"][0], out["w3lib UDF + groupBy"][0]
    print(f"ratio: irinorm is {b / a:.1f}x faster")
    spark.stop()


if __name__ == "__main__":
    main()
