"""Tests of scripts/plot-bench on small synthetic bench JSONs (no benchmark runs).

--compare: when every time doubles, the C pickler's included, nothing is a
regression (the ratios to the baseline in each run did not move); when one
subject's time alone doubles, that subject is, and only it. Plots: the
throughput legend lies outside both axes, so it covers no data point; a bar
chart uses a log axis only when its bars span more than 10x.

Usage: test_plot_bench.py PLOT_BENCH WORK_DIR
"""

import copy
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys

FAILURES = []


def check(cond, message):
    if not cond:
        FAILURES.append(message)
        print("FAIL: " + message)


def entry(name, ns, payload=None):
    e = {"name": name, "run_name": name, "run_type": "iteration", "iterations": 1000,
         "real_time": ns, "cpu_time": ns, "time_unit": "ns"}
    if name.endswith("/manual_time"):  # an external subject: its own time is real_time
        e["cpu_time"] = 3.0
    if payload is not None:
        e["payload_bytes"] = payload
        e["bytes_per_second"] = payload / (ns * 1e-9)
    return e


def synthetic_run():
    """A run with the C pickler, the reference and cloudpickle on a pyperformance
    workload, in-band buffers measured against memcpy, and a device buffer the
    C pickler does not run (its baseline is memcpy), an external subject
    (timed in its own process: manual time) and the fresh-string yardstick.
    Listed in a shuffled order, as with --benchmark_enable_random_interleaving."""
    b = []
    for op, base in (("dumps", 10000.0), ("loads", 14000.0)):
        b.append(entry("%s/pyperf_dict/cpython" % op, base, 5000))
        b.append(entry("%s/pyperf_dict/reference" % op, base / 4, 5000))
        b.append(entry("%s/pyperf_dict/reference-py" % op, base * 1.25, 5000))
        b.append(entry("%s/pyperf_dict/cloudpickle" % op, base * 1.3, 5000))
        b.append(entry("%s/pyperf_dict/ext/manual_time" % op, base * 0.8, 5000))
    b.append(entry("request/pyperf_dict/ext/manual_time", 80000.0, 5000))
    b.append(entry("result/pyperf_dict/string", 500.0, 5000))
    for size, label in ((1024, "1KiB"), (1 << 20, "1MiB")):
        copy_ns = size / 10.0  # 10 bytes per ns
        b.append(entry("memcpy/copy_%s/warm" % label, copy_ns, size))
        b.append(entry("memcpy/copy_%s/cold" % label, copy_ns * 3, size))
        for op in ("dumps", "loads"):
            b.append(entry("%s/inband_%s/cpython" % (op, label), copy_ns * 2 + 300, size))
            b.append(entry("%s/inband_%s/reference" % (op, label), copy_ns * 1.2 + 100, size))
    b.append(entry("dumps/device_1KiB/reference", 500.0, 1024))
    b.append(entry("dumps/only_reference/reference", 800.0, 100))
    b = b[1::2] + b[0::2]
    return {"context": {"date": "synthetic", "num_cpus": 2}, "benchmarks": b}


def scaled(doc, factor, only=None):
    doc = copy.deepcopy(doc)
    for e in doc["benchmarks"]:
        if only is None or e["name"] == only:
            for k in ("real_time", "cpu_time"):
                e[k] *= factor
            if "bytes_per_second" in e:
                e["bytes_per_second"] /= factor
    return doc


def write(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def run_plot_bench(script, new, out, old=None):
    cmd = [sys.executable, script, new, "--out", out] + (["--compare", old] if old else [])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc


def compare_test(script, work):
    base = synthetic_run()
    old = write(os.path.join(work, "old.json"), base)

    # Every time doubles, the C pickler's and memcpy's included: a slower machine.
    out = os.path.join(work, "uniform")
    proc = run_plot_bench(script, write(os.path.join(work, "uniform.json"), scaled(base, 2.0)),
                          out, old)
    check(proc.returncode == 0, "uniform: exit %d: %s" % (proc.returncode, proc.stderr))
    with open(os.path.join(out, "compare.json")) as f:
        doc = json.load(f)
    check(doc["decides"] == "ratio_change", "compare.json does not say which column decides")
    rows = {r["name"]: r for r in doc["benchmarks"]}
    check(len(rows) == len(base["benchmarks"]), "uniform: %d of %d benchmarks compared"
          % (len(rows), len(base["benchmarks"])))
    slower = [n for n, r in rows.items() if r["verdict"] == "slower"]
    check(not slower, "uniform slowdown flagged as regressions: %s" % slower)
    for n, r in rows.items():
        check(abs(r["raw_time_change"] - 1.0) < 1e-9, "%s: raw change %r, not +100%%"
              % (n, r["raw_time_change"]))
        if r["ratio_change"] is not None:
            check(abs(r["ratio_change"]) < 1e-9, "%s: ratio change %r" % (n, r["ratio_change"]))
    check(rows["dumps/pyperf_dict/reference"]["baseline"] == "cpython", "pyperf baseline")
    check(rows["dumps/pyperf_dict/reference-py"]["baseline"] == "cpython"
          and rows["loads/pyperf_dict/reference-py"]["baseline"] == "cpython",
          "the reference from Python objects is not measured against the C pickler")
    check(rows["dumps/device_1KiB/reference"]["baseline"] == "memcpy warm",
          "a workload the C pickler does not run is not measured against memcpy")
    check(rows["dumps/pyperf_dict/cpython"]["verdict"] == "baseline", "cpython is no baseline")
    check(rows["dumps/pyperf_dict/ext"]["baseline"] == "cpython"
          and rows["request/pyperf_dict/ext"]["baseline"] == "cpython",
          "an external subject is not measured against the C pickler")
    names = [r["name"] for r in doc["benchmarks"]]
    check(names.index("dumps/pyperf_dict/cpython") < names.index("dumps/pyperf_dict/reference")
          < names.index("loads/pyperf_dict/reference")
          < names.index("dumps/pyperf_dict/reference-py")
          < names.index("loads/pyperf_dict/reference-py")
          < names.index("dumps/inband_1KiB/cpython"),
          "compare rows are not in workload, subject, operation order: %s" % names)
    check(rows["dumps/only_reference/reference"]["verdict"].startswith("not judged"),
          "a benchmark without a baseline was judged")
    with open(os.path.join(out, "compare.txt")) as f:
        text = f.read()
    check("Decides: the \"ratio change\" column" in text, "compare.txt: no rule in its header")
    check("ratio change (decides)" in text and "raw time change (untrusted)" in text,
          "compare.txt: columns not labelled")
    with open(os.path.join(out, "perf.md")) as f:
        md = f.read()
    check("No regressions." in md, "perf.md: uniform slowdown reported as a regression")
    # Both readings of the reference side by side, each explained.
    check("| workload | cpython time | reference | reference-py | cpython |" in md,
          "perf.md: no reference-py column beside reference's")
    check("| pyperf_dict | 20 µs | 4.00× | 0.80× | 1.00× |" in md,
          "perf.md: reference-py's ratio to the C pickler is not t(cpython) / t(reference-py)")
    check("`reference-py` starts from the same Python object" in md,
          "perf.md does not say what reference-py measures")
    # The fresh string beside the reference's dumps (5 µs) and the budget at
    # the dumps target (the C pickler's 20 µs / 10): a yardstick, not judged.
    check("## Returning the bytes" in md
          and "| pyperf_dict | 1 µs | 5 µs | 20% | 2 µs | 50% |" in md,
          "perf.md: the fresh string's share of dumps and of the budget is wrong or missing")
    # The targets are the reference's current goals: 4x is short of both.
    check("| dumps pyperf_dict ≥ 10× cpython, same bytes | 4.00× | **not met** |" in md
          and "| loads pyperf_dict ≥ 5× cpython, same bytes | 4.00× | **not met** |" in md,
          "perf.md: the pyperformance targets are not 10x for dumps and 5x for loads")
    check(rows["result/pyperf_dict/string"]["verdict"] == "baseline",
          "the fresh-string yardstick was judged as a subject")
    check("0 slower" in proc.stdout, "stdout has no comparison summary: " + proc.stdout)
    check(rows["loads/pyperf_dict/ext"]["external"]
          and not rows["loads/pyperf_dict/reference"]["external"], "external subjects not marked")

    # Negative control: only the reference's dumps doubles.
    out = os.path.join(work, "one")
    one = scaled(base, 2.0, only="dumps/pyperf_dict/reference")
    proc = run_plot_bench(script, write(os.path.join(work, "one.json"), one), out, old)
    check(proc.returncode == 0, "one: exit %d: %s" % (proc.returncode, proc.stderr))
    with open(os.path.join(out, "compare.json")) as f:
        rows = {r["name"]: r for r in json.load(f)["benchmarks"]}
    slower = sorted(n for n, r in rows.items() if r["verdict"] == "slower")
    check(slower == ["dumps/pyperf_dict/reference"], "one subject slower: flagged %s" % slower)
    out_py = os.path.join(work, "one-py")
    one_py = scaled(base, 2.0, only="loads/pyperf_dict/reference-py")
    run_plot_bench(script, write(os.path.join(work, "one-py.json"), one_py), out_py, old)
    with open(os.path.join(out_py, "compare.json")) as f:
        rows_py = {r["name"]: r for r in json.load(f)["benchmarks"]}
    slower = sorted(n for n, r in rows_py.items() if r["verdict"] == "slower")
    check(slower == ["loads/pyperf_dict/reference-py"], "reference-py slower: flagged %s" % slower)
    check(abs(rows["dumps/pyperf_dict/reference"]["ratio_change"] - 1.0) < 1e-9,
          "one subject slower: ratio change %r"
          % rows["dumps/pyperf_dict/reference"]["ratio_change"])
    with open(os.path.join(out, "perf.md")) as f:
        md = f.read()
    check("| dumps/pyperf_dict/reference | cpython |" in md, "perf.md does not list the regression")

    # An external subject slower: flagged, and marked as timed in its own process.
    out = os.path.join(work, "external")
    ext = scaled(base, 2.0, only="loads/pyperf_dict/ext/manual_time")
    proc = run_plot_bench(script, write(os.path.join(work, "ext.json"), ext), out, old)
    check("1 slower (1 of them external subjects)" in proc.stdout, "external: " + proc.stdout)
    with open(os.path.join(out, "perf.md")) as f:
        check("| loads/pyperf_dict/ext (external) | cpython |" in f.read(),
              "perf.md does not mark an external subject's regression")

    # A compare file that is not a bench.json: one line, exit 2, nothing written.
    out = os.path.join(work, "bad")
    proc = run_plot_bench(script, old, out, write(os.path.join(work, "bad.json"), {"a": 1}))
    check(proc.returncode == 2 and proc.stderr.count("\n") == 1
          and proc.stderr.startswith("plot-bench: "), "bad compare file: %d %r"
          % (proc.returncode, proc.stderr))
    check(not os.path.exists(os.path.join(out, "compare.txt")), "bad compare file: wrote")


def overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def legend_problems(fig):
    """Why the figure's legends could cover data: each that overlaps an axes,
    or holds a plotted point."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    problems = []
    for leg in legends:
        box = leg.get_window_extent(renderer)
        for ax in fig.axes:
            if overlaps(box, ax.get_window_extent(renderer)):
                problems.append("legend overlaps the axes %r" % ax.get_title())
            for line in ax.get_lines():
                for x, y in ax.transData.transform(line.get_xydata()):
                    if box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1:
                        problems.append("legend covers a point of %s" % line.get_label())
    return problems


def plot_test(script, work):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is missing: plots not tested")
        return
    loader = importlib.machinery.SourceFileLoader("plot_bench", script)
    spec = importlib.util.spec_from_loader("plot_bench", loader)
    pb = importlib.util.module_from_spec(spec)
    loader.exec_module(pb)

    def report(doc):
        path = write(os.path.join(work, "plot.json"), doc)
        return pb.Report(*pb.load_runs(path))

    rep = report(synthetic_run())
    fig = pb.draw_throughput(plt, rep, "inband")
    check(fig is not None, "no throughput figure")
    problems = legend_problems(fig)
    check(not problems, "throughput legend: %s" % problems)
    check(len(fig.legends) == 1 and len(fig.legends[0].get_texts()) == 4,
          "throughput legend does not name the 2 subjects and 2 memcpy lines")
    plt.close(fig)

    # The check above can fail: a legend placed inside the axes is caught.
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2], [0, 1, 2], marker="o", label="data")
    ax.legend(loc="center")
    check(legend_problems(fig), "the legend check passes a legend inside the axes")
    plt.close(fig)

    check(pb.bar_scale([1.0, 9.9]) == "linear" and pb.bar_scale([1.0, 10.5]) == "log",
          "bar_scale does not switch at 10x")
    # pyperf_dict: 2500 ns to 18200 ns, under 10x: linear. One subject alone: linear.
    fig, scale = pb.draw_bars(plt, rep, "pyperf_dict")
    check(scale == "linear" and fig.axes[0].get_yscale() == "linear",
          "pyperf_dict bars: %s axis for a 7x span" % scale)
    labels = [t.get_text() for t in fig.axes[0].texts]
    check("4.00×" in labels and "1.00×" in labels, "bars not labelled with ratios: %s" % labels)
    plt.close(fig)
    fig, scale = pb.draw_bars(plt, rep, "device_1KiB")
    check(scale == "linear", "a single subject's bars: %s axis" % scale)
    plt.close(fig)
    wide = scaled(synthetic_run(), 40.0, only="dumps/pyperf_dict/cloudpickle")
    fig, scale = pb.draw_bars(plt, report(wide), "pyperf_dict")
    check(scale == "log" and fig.axes[0].get_yscale() == "log",
          "pyperf_dict bars spanning 50x: %s axis" % scale)
    plt.close(fig)

    # The script writes the figures and says which axis each bar chart has.
    out = os.path.join(work, "plots")
    proc = run_plot_bench(script, write(os.path.join(work, "wide.json"), wide), out)
    check(proc.returncode == 0, "plots: exit %d: %s" % (proc.returncode, proc.stderr))
    for png in ("throughput_inband.png", "throughput_device.png", "bars_pyperf_dict.png",
                "bars_inband_1KiB.png", "bars_device_1KiB.png"):
        p = os.path.join(out, png)
        check(os.path.exists(p) and os.path.getsize(p) > 0, "no plot " + png)
    with open(os.path.join(out, "perf.md")) as f:
        md = f.read()
    check("`bars_pyperf_dict.png`: log" in md and "`bars_device_1KiB.png`: linear" in md,
          "perf.md does not say which axis the bar charts use")


def main():
    script, work = sys.argv[1], sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for part in (compare_test, plot_test):
        try:
            part(script, work)
        except Exception as e:  # a broken report is a failure of this part, not the end
            check(False, "%s: %s: %s" % (part.__name__, type(e).__name__, e))
    if FAILURES:
        print("%d failures" % len(FAILURES))
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
