#!/usr/bin/env python3
"""Log scan speed: escpush against DuckDB on 1,000,000 generated log lines, as they come from
log-push: one plain file, the same gzip-compressed (`gzip -6`, one file), and split into 200
gzip files in date folders (`20261122/20261122T000000Z_20261122T001424Z_<hash>.log.gz`), plus
those 200 files served by moto's S3 server on loopback (escpush only: DuckDB's S3 reader
needs an extension from the internet). Then the breakdown case (`breakdown()`): the same
counts by `ClientCountry, EdgeResponseStatus` and by hour of `EdgeStartTimestamp` on the plain
and gzip file, escpush against DuckDB's `GROUP BY` of the SQL escpush prints and polars'
`group_by` (`benches/breakdown_peers.py`), every count asserted equal to DuckDB's.

Needs ../shared/bench (the log generator and the peers' runners); without it the benchmark
says so and skips. It generates the logs once into /tmp/escpush-bench (about 1.6 GB in all;
reused) and warms the page cache. DuckDB comes from the `bench` extra (`make bench` installs
it); without it a `.venv-bench` with DuckDB is made.

Each filter is run by every peer on every input kind in turn (repetitions > kinds > filters >
peers), and each run is one process whose wall time and peak RSS are measured:

- escpush (Rust): the `scan_count` example of escpush-scan, the engine without Python;
- escpush (CLI): `python -m escpush filter scan FILTER LOGS --count`, the Python face;
- duckdb: `../shared/bench/baselines/duckdb_count.py` (read_ndjson, every core; a glob for the
  200 files);
- inflate only: `scan_count --inflate-only`, the same inflater with no evaluation (once per
  kind, not per filter): how close the scan of gzip inputs is to its limit;
- jq: `../shared/bench/baselines/jq_count.sh` on the plain file (one core; slow, off by
  default).

The filters are the six samples of `tests/data/filters/` (copies of
`../shared/bench/filters/`) and the two 30-condition ones of `benches/data/filters/` (an `and`
and an `or`, several conditions per field).

On the plain file, two baselines show the machine's limit: `wc -l` and `cat > /dev/null`
(the same bytes read out of the page cache, nothing evaluated).

The counts of all peers must agree (and match the known 1M-line counts). MB/s is NDJSON bytes
(after decompression) / median wall. CPU time (user + system, all threads) is the steadier
measure on shared cores. Targets (issue 28), for the Rust engine:

- at least 3x DuckDB in CPU time and in wall time on the plain file, 2.5x on one gzip file;
- a 30-condition filter costs at most 20% more CPU than the one-condition `a_eq_string`;
- on the plain file, CPU throughput at least a third of `wc -l`'s (CPU at most 3x);
- at most 64 MiB peak RSS.

Environment: ESCPUSH_BENCH_LINES (default 1000000), REPS (3), JQ_REPS (1), PEERS (subset of:
rust cli duckdb jq; default all but jq), KINDS (subset of: plain gzip files s3),
CASES (subset of: count breakdown; default both).

Breakdown targets: at least 2x DuckDB in CPU time and in wall time, the breakdown at most 25%
over a plain count (escpush (Rust) against itself), peak RSS at most 64 MiB with `top` bounded.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "bench"
DATA = Path("/tmp/escpush-bench")
FILTERS = sorted((ROOT / "tests" / "data" / "filters").glob("*.json")) + sorted(
    (ROOT / "benches" / "data" / "filters").glob("*.json")
)
EXPECTED_1M = {
    "a_eq_string": 239099,
    "b_geq_int": 13438,
    "c_and3": 142792,
    "d_or_nested": 48818,
    "e_large": 160351,
    "f_array_contains": 1884,
    "g_and30": 783307,
    "h_or30": 102345,
}
TARGET_RATIO = {"plain": 3.0, "gzip": 2.5}  # times DuckDB, in CPU and in wall time
TARGET_RSS_MIB = 64
BREAKDOWN_FILTER = ROOT / "tests" / "data" / "filters" / "c_and3.json"
GROUP_BY = ["ClientCountry", "EdgeResponseStatus"]
TARGET_BREAKDOWN_RATIO = 2.0  # at least twice DuckDB, in wall and in CPU time
TARGET_OVERHEAD = 1.25  # the breakdown costs at most 25% over a plain count
ONE_CONDITION = "a_eq_string"
MANY_CONDITIONS = ("g_and30", "h_or30")
TARGET_MANY = 1.2  # a 30-condition filter costs at most 20% more CPU than a one-condition one
TARGET_WC = 3.0  # at most three times the CPU of `wc -l` on the plain file


def logs(lines: int) -> Path:
    """The generated log file, made once."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"logs-{lines}-42.ndjson"
    if not path.exists():
        print(f"generating {lines:,} log lines into {path} (once) ...", flush=True)
        part = path.with_suffix(".part")
        with part.open("wb") as out:
            subprocess.run(
                [sys.executable, str(SHARED / "gen_logs.py"), "--lines", str(lines), "--seed", "42"],
                stdout=out,
                check=True,
            )
        part.rename(path)
    return path


def warm(path: Path) -> None:
    with path.open("rb") as f:
        while f.read(16 << 20):
            pass


def bench_venv() -> Path:
    """`.venv-bench` with DuckDB, made by this script."""
    venv = ROOT / ".venv-bench"
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([str(python), "-c", "import duckdb"], capture_output=True).returncode != 0:
        print("installing duckdb into .venv-bench ...", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", "duckdb"], check=True)
    return python


def ensure_jq() -> bool:
    if shutil.which("jq"):
        return True
    print("jq is missing; installing it with apt-get ...", flush=True)
    apt = ["apt-get"] if os.geteuid() == 0 else ["sudo", "-n", "apt-get"]
    subprocess.run([*apt, "update", "-qq"], check=False)
    subprocess.run([*apt, "install", "-y", "-qq", "jq"], check=False)
    return shutil.which("jq") is not None


def scan_count() -> Path:
    """The Rust engine alone: escpush-scan's scan_count example, built with optimisations."""
    subprocess.run(
        ["cargo", "build", "--quiet", "--release", "-p", "escpush-scan", "--example", "scan_count"],
        cwd=ROOT,
        check=True,
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return target / "release" / "examples" / "scan_count"


TIME = Path("/usr/bin/time")


def timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float, float]:
    """Runs one process: its stdout, wall seconds, peak RSS in MiB and CPU seconds (user +
    system, all its threads and children: what the run cost the machine, which load from
    other processes changes less than the wall time).

    The peak RSS comes from GNU time (`%M`) when it is installed, as in the peers' own table:
    a child forked from this Python process would otherwise inherit its RSS high-water mark.
    Without it, wait4's figure is used and includes that.
    """
    report = DATA / "time.out"
    full = [str(TIME), "-f", "%M", "-o", str(report), *cmd] if TIME.exists() else cmd
    start = time.perf_counter()
    proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    out = proc.stdout.read()  # the runners print one count: no pipe fills up
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode(errors='replace')}")
    rss_kib = float(report.read_text().split()[-1]) if TIME.exists() else float(usage.ru_maxrss)
    # wait4 counts the process and the children it waited for (GNU time's own child too).
    cpu = usage.ru_utime + usage.ru_stime
    return out.decode(), wall, rss_kib / 1024, cpu


def gzip_one(path: Path) -> Path:
    """The log file as one gzip file (`gzip -6`), made once."""
    out = path.with_name(path.name + ".gz")
    if not out.exists():
        print(f"compressing {path} with gzip -6 (once) ...", flush=True)
        part = out.with_suffix(".part")
        with part.open("wb") as f:
            subprocess.run(["gzip", "-6", "-c", str(path)], stdout=f, check=True)
        part.rename(out)
    return out


def logpush_tree(path: Path, files: int = 200) -> Path:
    """The log file split into `files` gzip batches (zlib level 6, as gzip -6) in date folders
    with log-push names, two days of batches, made once."""
    import datetime
    import gzip
    import hashlib

    root = path.with_name(path.name.replace(".ndjson", f"-logpush-{files}"))
    if root.exists():
        return root
    print(f"splitting {path} into {files} gzip files in date folders (once) ...", flush=True)
    part = root.with_name(root.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    lines = path.read_bytes().split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    per = -(-len(lines) // files)
    t0 = datetime.datetime(2026, 11, 22, tzinfo=datetime.timezone.utc)
    step = datetime.timedelta(seconds=2 * 86400 // files)
    for i in range(files):
        a, b = t0 + i * step, t0 + (i + 1) * step
        digest = hashlib.sha1(str(i).encode()).hexdigest()[:8]
        p = part / f"{a:%Y%m%d}" / f"{a:%Y%m%dT%H%M%SZ}_{b:%Y%m%dT%H%M%SZ}_{digest}.log.gz"
        p.parent.mkdir(parents=True, exist_ok=True)
        batch = b"\n".join(lines[i * per : (i + 1) * per]) + b"\n"
        p.write_bytes(gzip.compress(batch, compresslevel=6, mtime=0))
    part.rename(root)
    return root


class MotoS3:
    """moto's S3 server in a process of its own on loopback, holding the log-push files."""

    def __init__(self, tree: Path) -> None:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.env = {
            **os.environ,
            "AWS_ENDPOINT_URL": self.url,
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench-secret",
            "AWS_REGION": "us-east-1",
        }
        import boto3

        s3 = boto3.client(
            "s3",
            endpoint_url=self.url,
            aws_access_key_id="bench",
            aws_secret_access_key="bench-secret",
            region_name="us-east-1",
        )
        for _ in range(100):
            try:
                s3.create_bucket(Bucket="logs")
                break
            except Exception:  # the server is still starting
                time.sleep(0.1)
        for f in sorted(tree.rglob("*.log.gz")):
            s3.put_object(Bucket="logs", Key=f"http/{f.relative_to(tree).as_posix()}", Body=f.read_bytes())

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait()


def duckdb_python() -> Path:
    """An interpreter with DuckDB: this one (the `bench` extra) or `.venv-bench`."""
    if subprocess.run([sys.executable, "-c", "import duckdb"], capture_output=True).returncode == 0:
        return Path(sys.executable)
    return bench_venv()


def main() -> None:
    if not (SHARED / "gen_logs.py").exists():
        print(f"skipped: {SHARED} (the log generator and the peers' runners) is not here")
        return
    lines = int(os.environ.get("ESCPUSH_BENCH_LINES", "1000000"))
    reps = int(os.environ.get("REPS", "3"))
    jq_reps = int(os.environ.get("JQ_REPS", "1"))
    wanted = set(os.environ.get("PEERS", "rust cli duckdb").split())
    kinds = os.environ.get("KINDS", "plain gzip files s3").split()
    cases = os.environ.get("CASES", "count breakdown").split()

    path = logs(lines)
    size = path.stat().st_size
    inputs: dict[str, str] = {"plain": str(path)}
    if "gzip" in kinds:
        inputs["gzip"] = str(gzip_one(path))
    tree = logpush_tree(path) if {"files", "s3"} & set(kinds) else None
    if tree is not None and "files" in kinds:
        inputs["files"] = str(tree)
    moto = None
    if tree is not None and "s3" in kinds:
        try:
            moto = MotoS3(tree)
            inputs["s3"] = "s3://logs/http/"
        except ImportError:
            print("moto is missing (the test extra): the s3 kind is left out")
    inputs = {k: v for k, v in inputs.items() if k in kinds}
    scan = scan_count() if "rust" in wanted or len(inputs) > 1 else None
    python = duckdb_python() if "duckdb" in wanted else None

    def commands(kind: str) -> dict[str, list[str]]:
        where = inputs[kind]
        peers: dict[str, list[str]] = {}
        if scan is not None and "rust" in wanted and kind != "s3":
            peers["escpush (Rust)"] = [str(scan), "{filter}", where]
        if "cli" in wanted:
            peers["escpush (CLI)"] = [sys.executable, "-m", "escpush", "filter", "scan", "{filter}", where, "--count"]
        if python is not None and kind != "s3":
            glob = f"{where}/*/*.log.gz" if kind == "files" else where
            peers["duckdb"] = [str(python), str(SHARED / "baselines" / "duckdb_count.py"), "{filter}", glob]
        if "jq" in wanted and kind == "plain" and ensure_jq():
            peers["jq"] = [str(SHARED / "baselines" / "jq_count.sh"), "{filter}", where]
        return peers

    for where in inputs.values():
        if not where.startswith("s3://"):
            for f in [Path(where)] if Path(where).is_file() else sorted(Path(where).rglob("*.gz")):
                warm(f)
    # The machine's limit on the plain file: reading it, counting its lines.
    baselines = {
        "wc -l": ["wc", "-l", str(path)],
        "cat > /dev/null": ["sh", "-c", 'cat "$0" > /dev/null', str(path)],
    }
    baseline_runs: dict[str, list[tuple[float, float, float]]] = {}
    load_before = os.getloadavg()[0]
    runs: dict[tuple[str, str, str], list[tuple[float, float, float]]] = {}
    counts: dict[tuple[str, str, str], set[int]] = {}
    inflate: dict[str, list[tuple[float, float, float]]] = {}
    try:
        for rep in range(reps):
            if "plain" in inputs:
                for name, cmd in baselines.items():
                    _, wall, rss, cpu = timed(cmd)
                    baseline_runs.setdefault(name, []).append((wall, rss, cpu))
                    print(f"  rep {rep + 1} plain  {'(' + name + ')':<17} {wall:6.2f} s {rss:6.0f} MiB", flush=True)
            for kind in inputs:
                env = moto.env if kind == "s3" and moto is not None else None
                if kind in ("gzip", "files") and scan is not None:
                    _, wall, rss, cpu = timed([str(scan), "--inflate-only", inputs[kind]])
                    inflate.setdefault(kind, []).append((wall, rss, cpu))
                    print(f"  rep {rep + 1} {kind:<6} {'(inflate only)':<17} {wall:6.2f} s {rss:6.0f} MiB", flush=True)
                for f in FILTERS if "count" in cases else []:
                    for peer, template in commands(kind).items():
                        if peer == "jq" and rep >= jq_reps:
                            continue
                        out, wall, rss, cpu = timed([a.replace("{filter}", str(f)) for a in template], env)
                        runs.setdefault((kind, f.stem, peer), []).append((wall, rss, cpu))
                        counts.setdefault((kind, f.stem, peer), set()).add(int(out.split()[0]))
                        print(
                            f"  rep {rep + 1} {kind:<6} {f.stem:<17} {peer:<15} {wall:6.2f} s {rss:6.0f} MiB",
                            flush=True,
                        )
    finally:
        if moto is not None:
            moto.close()

    print(f"\n{lines:,} lines ({size:,} bytes of NDJSON), in the page cache; {os.cpu_count()} cores")
    for kind, where in inputs.items():
        print(f"- {kind}: {where}")
    load_after = os.getloadavg()[0]
    print(f"1-minute load average {load_before:.2f} before the runs, {load_after:.2f} after (shared cores)")
    print("median wall and CPU (user + system) of", reps, "runs, peak RSS = max over runs")
    print("x DuckDB: DuckDB's median wall / the peer's; CPU x: the same of CPU seconds (the targets hold for both)\n")
    print("| input | filter | peer | matches | median wall s | MB/s | CPU s | peak RSS MiB | x DuckDB | CPU x", end="")
    print(" | target |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    problems = []
    median_cpu = {
        key: statistics.median(c for _, _, c in value) for key, value in runs.items() if key[2] == "escpush (Rust)"
    }
    wc_cpu = statistics.median(c for _, _, c in baseline_runs["wc -l"]) if "wc -l" in baseline_runs else None
    for name, value in baseline_runs.items():
        wall = statistics.median(w for w, _, _ in value)
        cpu = statistics.median(c for _, _, c in value)
        rss = max(r for _, r, _ in value)
        print(
            f"| plain | - | ({name}) | - | {wall:.2f} | {size / wall / 1e6:.0f} | {cpu:.2f} | {rss:.0f} | - | - | - |"
        )
    for kind in inputs:
        if kind in inflate:
            wall = statistics.median(w for w, _, _ in inflate[kind])
            rss = max(r for _, r, _ in inflate[kind])
            cpu = statistics.median(c for _, _, c in inflate[kind])
            print(
                f"| {kind} | - | (inflate only) | - | {wall:.2f} | {size / wall / 1e6:.0f} | {cpu:.2f} | {rss:.0f} "
                "| - | - | - |"
            )
        peers = commands(kind)
        for f in FILTERS if "count" in cases else []:
            found = set().union(*(counts[(kind, f.stem, p)] for p in peers))
            expected = EXPECTED_1M.get(f.stem) if lines == 1_000_000 else None
            if len(found) != 1 or (expected is not None and found != {expected}):
                problems.append(f"{kind} {f.stem}: counts disagree {sorted(found)} (expected {expected})")
            duck_runs = runs.get((kind, f.stem, "duckdb"))
            duck = statistics.median(w for w, _, _ in duck_runs) if duck_runs else None
            duck_cpu = statistics.median(c for _, _, c in duck_runs) if duck_runs else None
            for peer in peers:
                wall = statistics.median(w for w, _, _ in runs[(kind, f.stem, peer)])
                cpu = statistics.median(c for _, _, c in runs[(kind, f.stem, peer)])
                rss = max(r for _, r, _ in runs[(kind, f.stem, peer)])
                ratio = duck / wall if duck else float("nan")
                cpu_ratio = duck_cpu / cpu if duck_cpu and cpu else float("nan")
                target = ""
                if peer == "escpush (Rust)":
                    missed = []
                    want = TARGET_RATIO.get(kind)
                    if duck and want and min(ratio, cpu_ratio) < want:
                        missed.append(f"{ratio:.2f}x wall / {cpu_ratio:.2f}x CPU < {want}x")
                    one = median_cpu.get((kind, ONE_CONDITION, peer))
                    if f.stem in MANY_CONDITIONS and one and cpu > TARGET_MANY * one:
                        missed.append(f"{cpu / one:.2f}x the CPU of {ONE_CONDITION} > {TARGET_MANY}x")
                    if kind == "plain" and wc_cpu and cpu > TARGET_WC * wc_cpu:
                        missed.append(f"{cpu / wc_cpu:.1f}x the CPU of wc -l > {TARGET_WC:.0f}x")
                    if rss > TARGET_RSS_MIB:
                        missed.append(f"{rss:.0f} MiB > {TARGET_RSS_MIB} MiB")
                    target = "missed: " + ", ".join(missed) if missed else "met"
                count = "/".join(str(c) for c in sorted(counts[(kind, f.stem, peer)]))
                print(
                    f"| {kind} | {f.stem} | {peer} | {count} | {wall:.2f} | {size / wall / 1e6:.0f} | {cpu:.2f} "
                    f"| {rss:.0f} | {ratio:.2f} | {cpu_ratio:.2f} | {target} |"
                )
    if "breakdown" in cases:
        problems += breakdown(inputs, scan, reps)
    if problems:
        print("\n" + "\n".join(problems))
        sys.exit(1)
    print("\nAll peers agree on every count.")


def breakdown(inputs: dict[str, str], scan: Path | None, reps: int) -> list[str]:
    """The breakdown case: escpush (the Rust engine, and the CLI's --json) against DuckDB and
    polars, on the plain and the gzip file. Returns the problems (counts that differ)."""
    import json

    import escpush

    f = escpush.Filter.parse(BREAKDOWN_FILTER.read_text())
    ddl = escpush.dataset_schema("http_requests", "duckdb", table="t")
    types = dict(
        (line.strip().split(" ", 1)[0].strip('"'), line.strip().split(" ", 1)[1].rstrip(","))
        for line in ddl.splitlines()[1:-1]
    )
    wanted = {c["key"] for c in f.to_dict()["where"]["and"]} | set(GROUP_BY) | {"EdgeStartTimestamp"}
    columns = [f"{name}={types[name]}" for name in sorted(wanted)]
    sql = f.to_sql("duckdb", dataset="http_requests")
    peers_py = ROOT / "benches" / "breakdown_peers.py"
    split = ["--group-by", ",".join(GROUP_BY), "--every", "3600"]

    def cli_rows(out: str) -> str:
        data = json.loads(out)
        b = data["breakdown"]
        rows = [f"{data['matched']} {data['total']}"]
        for g in b["groups"]:
            values = [str(g["key"].get(k, "(missing)")) for k in GROUP_BY]
            rows.append("\t".join(["G", *values, str(g["lines"]), str(g["matched"])]))
        for x in b["buckets"]:
            start = escpush_unix(x["start"])
            rows.append(f"B\t{start}\t{x['lines']}\t{x['matched']}")
        return "\n".join(rows)

    peers: dict[str, list[str]] = {}
    if scan is not None:
        peers["escpush count (Rust)"] = [str(scan), str(BREAKDOWN_FILTER), "{logs}"]
        peers["escpush (Rust)"] = [str(scan), *split, str(BREAKDOWN_FILTER), "{logs}"]
        peers["escpush top 10 (Rust)"] = [str(scan), *split, "--top", "10", str(BREAKDOWN_FILTER), "{logs}"]
    cli = [sys.executable, "-m", "escpush", "filter", "scan", str(BREAKDOWN_FILTER), "{logs}"]
    peers["escpush (CLI)"] = [*cli, "--group-by", GROUP_BY[0], "--group-by", GROUP_BY[1], "--every", "1h"]
    peers["escpush (CLI)"] += ["--top", str(2**62), "--json"]
    peers["duckdb"] = [sys.executable, str(peers_py), "duckdb", sql, "{logs}", *columns]
    peers["polars"] = [sys.executable, str(peers_py), "polars", str(BREAKDOWN_FILTER), "{logs}"]
    runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
    outputs: dict[tuple[str, str], set[str]] = {}
    kinds = [k for k in ("plain", "gzip") if k in inputs]
    for rep in range(reps):
        for kind in kinds:
            for peer, template in peers.items():
                out, wall, rss, cpu = timed([a.replace("{logs}", inputs[kind]) for a in template])
                if peer == "escpush (CLI)":
                    out = cli_rows(out)
                # `matched total` only: scan_count's first line goes on with bytes and seconds.
                first, _, rest = out.strip().partition("\n")
                out = "\n".join([" ".join(first.split()[:2]), rest])
                runs.setdefault((kind, peer), []).append((wall, rss, cpu))
                outputs.setdefault((kind, peer), set()).add(out.strip())
                print(f"  rep {rep + 1} {kind:<6} breakdown {peer:<22} {wall:6.2f} s {rss:6.0f} MiB", flush=True)

    def table(text: str) -> tuple[str, dict[str, str]]:
        head, *rows = text.splitlines()
        counts = {}
        for row in rows:
            *key, lines, kept = row.split("\t")
            counts["\t".join(key)] = f"{lines}\t{kept}"
        return " ".join(head.split()[:2]), counts

    problems = []
    print(f"\nbreakdown: {BREAKDOWN_FILTER.stem} by {', '.join(GROUP_BY)} and every hour of EdgeStartTimestamp")
    print("| input | peer | groups | buckets | median wall s | CPU s | peak RSS MiB", end="")
    print(" | x DuckDB wall | x DuckDB CPU | target |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for kind in kinds:
        (duck_out,) = outputs[(kind, "duckdb")]
        duck_head, duck = table(duck_out)
        med = {p: statistics.median(w for w, _, _ in runs[(kind, p)]) for p in peers}
        cpu = {p: statistics.median(c for _, _, c in runs[(kind, p)]) for p in peers}
        for peer in peers:
            outs = outputs[(kind, peer)]
            if len(outs) != 1:
                problems.append(f"{kind} {peer}: the runs disagree")
            head, got = table(next(iter(outs)))
            if peer == "escpush count (Rust)":
                groups = buckets = "-"
                if head != duck_head:
                    problems.append(f"{kind} {peer}: {head} != DuckDB's {duck_head}")
            else:
                groups = str(sum(k.startswith("G") for k in got))
                buckets = str(sum(k.startswith("B") for k in got))
                if head != duck_head or (got != duck and not peer.startswith("escpush top")):
                    problems.append(f"{kind} {peer}: counts differ from DuckDB's")
                if peer.startswith("escpush top") and any(duck.get(k) != v for k, v in got.items()):
                    problems.append(f"{kind} {peer}: a listed group's counts differ from DuckDB's")
            rss = max(r for _, r, _ in runs[(kind, peer)])
            target = ""
            if peer == "escpush (Rust)" and "escpush count (Rust)" in peers:
                over = med[peer] / med["escpush count (Rust)"]
                over_cpu = cpu[peer] / cpu["escpush count (Rust)"]
                missed = [f"{over:.2f}x wall of a count"] if over > TARGET_OVERHEAD else []
                missed += [f"{over_cpu:.2f}x CPU of a count"] if over_cpu > TARGET_OVERHEAD else []
                target = f"over a count: {over:.2f}x wall, {over_cpu:.2f}x CPU; "
                for name, ratio in (("wall", med["duckdb"] / med[peer]), ("CPU", cpu["duckdb"] / cpu[peer])):
                    if ratio < TARGET_BREAKDOWN_RATIO:
                        missed.append(f"{ratio:.2f}x DuckDB {name}")
                target += "missed: " + ", ".join(missed) if missed else "met"
            if peer == "escpush top 10 (Rust)":
                target = "met" if rss <= TARGET_RSS_MIB else f"missed: {rss:.0f} MiB > {TARGET_RSS_MIB} MiB"
            print(
                f"| {kind} | {peer} | {groups} | {buckets} | {med[peer]:.2f} | {cpu[peer]:.2f} | {rss:.0f} "
                f"| {med['duckdb'] / med[peer]:.2f} | {cpu['duckdb'] / cpu[peer]:.2f} | {target} |"
            )
    return problems


def escpush_unix(text: str) -> int:
    import datetime

    when = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return int(when.timestamp())


if __name__ == "__main__":
    main()
