"""Edit-to-page latency: a profile file saved → rebuilt → a running `kg serve` shows the change on the page.

    python benchmarks/edit_page_bench.py --data /tmp/perf/g100k --work /tmp/perf/ep-100k --edits 5 \\
        --mode both --label after --out benchmarks/out/edit_page_100k.json

copies DATA to WORK/data (never modifying DATA), builds WORK/store from scratch with `python -m kg build` (the
code under --src, default this checkout's src/), then measures one or both ways of rebuilding:

* oneshot: `python -m kg serve` runs, and each save is followed by `python -m kg build` (its own process, as a
  user would run it);
* resident: `python -m kg serve --watch` runs, and its resident builder notices the save and rebuilds (the
  rebuild seconds are read from its log).

Each makes --edits edits to different profiles, alternating a retitled work (the owner's person page must show
the new title) and a renamed person (the page of one of the person's works must show the new name). Each edit is
timed from the file's save to the first page response that shows it (polled every 20 ms). Prints and writes
medians and each edit's numbers as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from html import escape
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _env(src: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(src)}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return str(response.read().decode("utf-8"))
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}"
    except OSError:
        return ""


def _slugs(data: Path, src: Path, names: list[str], titles: list[str]) -> dict[str, list[str]]:
    """The person slugs of names and work slugs of titles, as the code under src resolves them."""
    script = ("import json, sys\nfrom pathlib import Path\nfrom kg.config import Config\n"
              "from kg.pipeline import read_linked\n"
              "names, titles = json.loads(sys.stdin.read())\n"
              "r = read_linked(Config(data=Path(sys.argv[1]))).resolution\n"
              "print(json.dumps({'people': [r.person(n) for n in names], 'works': [r.work(t) for t in titles]}))")
    done = subprocess.run([sys.executable, "-c", script, str(data)], input=json.dumps([names, titles]),
                          capture_output=True, text=True, env=_env(src), check=True)
    return dict(json.loads(done.stdout))


def _cpu() -> float:
    """User and system seconds of the waited-for child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _build(data: Path, store: Path, src: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kg", "build", "--data", str(data), "--store", str(store),
                           "--timings"], capture_output=True, text=True, env=_env(src), check=True)
    stages = "; ".join(line.strip() for line in done.stdout.splitlines()
                       if line.split(" ", 1)[0] in ("map", "validate", "reason", "store"))
    return time.perf_counter() - start, stages


def edit_profile(path: Path, kind: str, number: int) -> tuple[str, Any]:
    """Retitle the first work or rename the person; returns the new text and the old profile data."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if kind == "retitle":
        data["publications"][0]["title"] += f" Revised {number}"
        new = data["publications"][0]["title"]
    else:
        old = data["name"]
        new = f"{old.split()[0]} Renamed{number} {' '.join(old.split()[1:])}"
        data["name"] = new
        for publication in data["publications"]:
            publication["authors"] = [new + a[len(old):] if a in (old, old + "*") else a
                                      for a in publication["authors"]]
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return new, data


def _wait_page(url: str, deadline_s: float = 120) -> None:
    deadline = time.monotonic() + deadline_s
    while not _get(url).startswith("<") and time.monotonic() < deadline:
        time.sleep(0.2)


def _shown(page: str, new: str, since: float) -> float:
    """Poll a page until it shows a text (at most 60 s after since); the time it did."""
    while escape(new, quote=False) not in _get(page) and time.perf_counter() - since < 60:
        time.sleep(0.02)
    return time.perf_counter()


def _rebuilds(log: Path) -> list[tuple[float, float, str]]:
    """(wall seconds, CPU seconds, stages) of each rebuild a kg serve --watch log reports, in order."""
    found = re.findall(r"^rebuilt in ([0-9.]+) s \(CPU ([0-9.]+) s; ([^)]*)\)", log.read_text(encoding="utf-8"), re.M)
    return [(float(wall), float(cpu), stages) for wall, cpu, stages in found]


class Run:
    """One way of rebuilding measured over the same edits (a fresh copy of the data and store per run)."""

    def __init__(self, args: argparse.Namespace, mode: str) -> None:
        self.args, self.mode = args, mode
        self.work = args.work / mode
        if self.work.exists():
            shutil.rmtree(self.work)
        shutil.copytree(args.data, self.work / "data")
        self.data, self.store, self.src = self.work / "data", self.work / "store", args.src.resolve()

    def measure(self) -> dict[str, Any]:
        """Build, serve, edit; the run's numbers."""
        full, stages = _build(self.data, self.store, self.src)
        print(f"[{self.mode}] full build: {full:.2f} s  {stages}", flush=True)
        profiles = sorted((self.data / "profiles").glob("*.yaml"))
        chosen = [profiles[(n * 7 + 3) % len(profiles)] for n in range(self.args.edits)]
        kinds = ["retitle" if n % 2 == 0 else "rename" for n in range(self.args.edits)]
        loaded = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in chosen]
        titles = [d["publications"][0]["title"] for d in loaded]
        slugs = _slugs(self.data, self.src, [d["name"] for d in loaded], titles)
        port = _free_port()
        log_path = self.work / "serve.log"
        log = log_path.open("w")
        watch = ["--watch"] if self.mode == "resident" else []
        server = subprocess.Popen([sys.executable, "-m", "kg", "serve", "--data", str(self.data), "--store",
                                   str(self.store), "--port", str(port), *watch], env=_env(self.src), stdout=log,
                                  stderr=subprocess.STDOUT)
        rows: list[dict[str, Any]] = []
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_page(f"{base}/page/person/{slugs['people'][0]}")
            deadline = time.monotonic() + 600
            while self.mode == "resident" and not _rebuilds(log_path) and time.monotonic() < deadline:
                time.sleep(0.2)  # the resident builder's first build (warming its memory) is done
            for number, (path, kind) in enumerate(zip(chosen, kinds, strict=True)):
                rows.append(self._edit(base, slugs, number, path, kind, log_path))
                time.sleep(1)
        finally:
            server.terminate()
            server.wait(timeout=60)
            log.close()
        medians = {key: round(statistics.median(r[key] for r in rows), 3)
                   for key in ("edit_to_page", "build", "build_cpu")}
        print(f"[{self.mode}] median over {len(rows)} edits: edit to page {medians['edit_to_page']:.2f} s, "
              f"build {medians['build']:.2f} s (CPU {medians['build_cpu']:.2f} s)", flush=True)
        return {"full_build": round(full, 3), "medians": medians, "edits": rows}

    def _edit(self, base: str, slugs: dict[str, list[str]], number: int, path: Path, kind: str,
              log_path: Path) -> dict[str, Any]:
        page = (f"{base}/page/person/{slugs['people'][number]}" if kind == "retitle"
                else f"{base}/page/work/{slugs['works'][number]}")
        before = len(_rebuilds(log_path)) if self.mode == "resident" else 0
        saved, cpu = time.perf_counter(), _cpu()
        new, _ = edit_profile(path, kind, number)
        stages = ""
        if self.mode == "oneshot":
            build, stages = _build(self.data, self.store, self.src)
        built = time.perf_counter()
        shown = _shown(page, new, built)
        if self.mode == "resident":
            deadline = time.monotonic() + 10
            while len(_rebuilds(log_path)) <= before and time.monotonic() < deadline:
                time.sleep(0.05)
            found = _rebuilds(log_path)
            build, build_cpu, stages = found[before] if len(found) > before else (float("nan"), float("nan"), "")
        else:
            build_cpu = _cpu() - cpu
        row = {"kind": kind, "profile": path.name, "page": page, "edit_to_page": round(shown - saved, 3),
               "build": round(build, 3), "build_cpu": round(build_cpu, 3), "stages": stages,
               "shown": shown - built < 60, "load": os.getloadavg()[0]}
        print(f"[{self.mode}] {kind:8} {path.name}: {shown - saved:6.2f} s to the page (build {build:.2f} s, CPU "
              f"{build_cpu:.2f} s, load {row['load']:.1f})  {stages}", flush=True)
        return row


def main() -> None:
    """Run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--mode", choices=["oneshot", "resident", "both"], default="both")
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the kg sources to run (PYTHONPATH)")
    parser.add_argument("--label", default="")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()
    modes = ["resident", "oneshot"] if args.mode == "both" else [args.mode]
    results = {mode: Run(args, mode).measure() for mode in modes}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"label": args.label, "data": str(args.data), "src": str(args.src.resolve()),
                                        "runs": results}, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
