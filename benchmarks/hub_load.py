"""The start of class on the course's hub: N students log in at once and run tutorial 01.

    sudo .venv/bin/python benchmarks/hub_load.py --students 30

Starts the hub of course/ on localhost (course/local_class.py: the students are Unix users in a
private mount namespace, the machine's /etc untouched), creates N students (they sign up
before the clock starts), and has them all, at the same moment, log in, start their servers,
open notebooks/en/01_accelerated_numpy.ipynb on the EduJAX kernel and run every cell, through
the hub's proxy with the requests and kernel websocket a browser uses (course/hub_client.py).

Prints p50/p95 of the time from "log in" to the first executed cell and to the whole notebook,
the failures (a step that raised, a cell that errored, or a cell whose output differs from what
most students got; the %timeit cell is left out of that comparison), the peak memory of the hub
and of all the students' processes, and last a line
``students N, failures F, p95 first cell S s``. Needs root and `scripts/setup --course`.
"""
from __future__ import annotations

import argparse
import sys
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from course.hub_client import HubUser  # noqa: E402
from course.local_class import LocalClass  # noqa: E402

NOTEBOOK = REPO / "notebooks/en/01_accelerated_numpy.ipynb"
MIB = 2**20
PASSWORD = "load-test-password"


class MemorySampler(threading.Thread):
    """Every half second: the resident memory of the hub's processes (hub, proxy, culler) and
    of the students' (servers, kernels); keeps the peaks."""

    def __init__(self, local: LocalClass):
        super().__init__(daemon=True)
        self.local, self.stop = local, threading.Event()
        self.peak_hub = self.peak_students = 0

    def hub_rss(self) -> int:
        try:
            hub = psutil.Process(self.local.hub.pid)
            return sum(p.memory_info().rss for p in [hub, *hub.children(recursive=True)]
                       if p.uids().real == 0)
        except psutil.Error:
            return 0

    def students_rss(self) -> int:
        total = 0
        for pid in self.local.students_processes():
            try:
                total += psutil.Process(pid).memory_info().rss
            except psutil.Error:
                pass
        return total

    def run(self) -> None:
        while not self.stop.wait(0.5):
            self.peak_hub = max(self.peak_hub, self.hub_rss())
            self.peak_students = max(self.peak_students, self.students_rss())


def one_student(url: str, name: str, cells: list[str], may_raise: frozenset[int],
                start: threading.Event) -> dict:
    """Everything one student does; times from the moment they press "log in"."""
    student = HubUser(url, name, PASSWORD)
    start.wait()
    t0 = time.perf_counter()
    try:
        assert student.log_in().status_code == 302, "login refused"
        student.new_token()
        student.start_server()
        spawned = time.perf_counter() - t0
        runs = student.run_cells(cells, may_raise=may_raise)
        errors = [f"cell {i}: {r.error}" for i, r in enumerate(runs)
                  if (r.status == "ok") == (i in may_raise)]
        if len(runs) < len(cells):
            errors.append(f"only {len(runs)} of {len(cells)} cells ran")
        return {"name": name, "spawn": spawned, "first": runs[0].finished - t0,
                "whole": runs[-1].finished - t0, "outputs": [r.output for r in runs],
                "errors": errors, "reconnects": student.reconnects}
    except Exception as error:  # a failure of this student, counted and shown, never fatal
        return {"name": name, "errors": [f"{type(error).__name__}: {error}"],
                "trace": traceback.format_exc()}


def wrong_outputs(results: list[dict], cells: list[str]) -> None:
    """Mark a student whose output differs from the majority's in a cell (not %timeit)."""
    complete = [r for r in results if not r["errors"]]
    for i, source in enumerate(cells):
        if "%timeit" in source or not complete:
            continue
        majority, _ = Counter(r["outputs"][i] for r in complete).most_common(1)[0]
        for r in complete:
            if r["outputs"][i] != majority:
                r["errors"].append(f"cell {i}: output differs from the other students'")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--hub-log", type=Path, help="keep the hub's log (and its servers') here")
    args = parser.parse_args()
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    cells = [c.source for c in code]
    may_raise = frozenset(i for i, c in enumerate(code)
                          if "raises-exception" in c.metadata.get("tags", []))
    names = [f"student{i:03d}" for i in range(args.students)]
    local = LocalClass(names)
    sampler = MemorySampler(local)
    try:
        local.start_hub()
        # The accounts exist before class (students sign up in the first week); what is
        # measured is the start of a lecture: everyone logging in at once.
        with ThreadPoolExecutor(max_workers=4) as pool:
            kinds = list(pool.map(lambda n: HubUser(local.url, n, PASSWORD).sign_up(), names))
        assert kinds == ["success"] * len(names), Counter(kinds)
        sampler.start()
        go = threading.Event()
        with ThreadPoolExecutor(max_workers=args.students) as pool:
            futures = [pool.submit(one_student, local.url, n, cells, may_raise, go) for n in names]
            time.sleep(1)
            wall = time.perf_counter()
            go.set()
            results = [f.result() for f in futures]
            wall = time.perf_counter() - wall
        time.sleep(1)
        sampler.stop.set()
        wrong_outputs(results, cells)
    finally:
        if args.hub_log:
            args.hub_log.write_text((local.root / "hub.log").read_text(errors="replace"))
        local.stop()
    report(results, sampler, wall, len(cells))
    return 0 if not any(r["errors"] for r in results) else 1


def report(results: list[dict], sampler: MemorySampler, wall: float, n_cells: int) -> None:
    ok = [r for r in results if not r["errors"]]
    failures = len(results) - len(ok)
    cpus, mem = psutil.cpu_count(), psutil.virtual_memory().total / 2**30
    print(f"{len(results)} students at once, tutorial 01 ({n_cells} code cells) each, on "
          f"{cpus} cores and {mem:.0f} GiB; all done in {wall:.0f} s")
    for key, what in (("spawn", "server ready"), ("first", "first executed cell"),
                      ("whole", "whole notebook")):
        values = [r[key] for r in ok]
        print(f"  time to {what:<20} p50 {percentile(values, 0.5):6.1f} s   "
              f"p95 {percentile(values, 0.95):6.1f} s   max {max(values, default=0):6.1f} s")
    print(f"  peak memory: hub + proxy + culler {sampler.peak_hub / MIB:.0f} MiB, students' "
          f"servers and kernels {sampler.peak_students / MIB:.0f} MiB "
          f"({sampler.peak_students / MIB / max(len(results), 1):.0f} MiB per student)")
    reconnects = sum(r.get("reconnects", 0) for r in results)
    print(f"  kernel websockets that dropped and reconnected (as JupyterLab does): {reconnects}")
    for r in results:
        if r["errors"]:
            print(f"  FAILED {r['name']}: {'; '.join(r['errors'])[:300]}")
    first_p95 = percentile([r["first"] for r in ok], 0.95)
    print(f"students {len(results)}, failures {failures}, p95 first cell {first_p95:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
