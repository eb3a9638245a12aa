"""The table of scripts/device/compare.sh: for every shape, tilekit as shipped (measured defaults
or planner), the planner alone, after `tilekit tune`, and PyTorch from the same session, in
TFLOP/s, with the ratios and their geometric means. Reads OUT_DIR/{shipped,planner,tuned}*.json
and OUT_DIR/torch*.json (PyTorch's best run of each shape); prints Markdown.
  python3 scripts/device/compare_summary.py OUT_DIR"""
import json
import math
import os
import re
import sys

out = sys.argv[1]


def load(label):
    rows = {}
    for suffix in ("", "-f16", "-unseen"):
        path = os.path.join(out, f"{label}{suffix}.json")
        if not os.path.exists(path):
            continue
        for e in json.load(open(path))["entries"]:
            m = re.match(r"matmul-(shape|f16/shape|unseen|unseen/f16)/(\d+)x(\d+)x(\d+)$", e["name"])
            if not m:
                continue
            dtype = "f16" if "f16" in m.group(1) else "f32"
            key = (dtype, tuple(int(v) for v in m.groups()[1:]), m.group(1).startswith("unseen"))
            rows[key] = (e["ops_per_second"] / 1e12, e.get("plan", ""), e.get("verified"))
    return rows


tk = {label: load(label) for label in ("shipped", "planner", "tuned")}
# PyTorch's best of its runs (torch.json, torch-2.json, ...): its short products move from one
# process to the next (BENCHMARKS.md, "Process to process"), so each ratio is taken against the
# faster.
torch = {}
for name in sorted(os.listdir(out)):
    if not re.match(r"torch(-\d+)?\.json$", name):
        continue
    t = json.load(open(os.path.join(out, name)))
    for r in t["rows"]:
        m = re.match(r"(f16 )?matmul (\d+)x(\d+)x(\d+)$", r["work"])
        if m:
            key = ("f16" if m.group(1) else "f32", tuple(int(v) for v in m.groups()[1:]))
            torch[key] = max(torch.get(key, 0.0), r["flop_per_second"] / 1e12)
keys = sorted(set().union(*[set(v) for v in tk.values()]), key=lambda k: (k[0], k[2], k[1]))


def fmt(v):
    return "–" if v is None else (f"{v:.1f}" if v >= 10 else f"{v:.2f}")


print("| dtype | shape | set | shipped | chosen (shipped) | planner | tuned | PyTorch | shipped/PyTorch | tuned/PyTorch | shipped/tuned |")
print("|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
ratios = {}
for k in keys:
    dtype, shape, unseen = k
    s = tk["shipped"].get(k)
    p = tk["planner"].get(k)
    u = tk["tuned"].get(k)
    py = torch.get((dtype, shape))
    cells = []
    for name, a, b in (("shipped", s, py), ("tuned", u, py), ("shipped/tuned", s, u)):
        if a and b:
            r = a[0] / (b if isinstance(b, float) else b[0])
            ratios.setdefault((dtype, name), []).append(r)
            cells.append(f"{r:.2f}×")
        else:
            cells.append("–")
    unverified = [x for x in (s, p, u) if x and x[2] is False]
    print(f"| {dtype} | {'×'.join(map(str, shape))} | {'unseen' if unseen else 'bench'} | {fmt(s and s[0])} | {s[1] if s else '–'} | "
          f"{fmt(p and p[0])} | {fmt(u and u[0])} | {fmt(py)} | {' | '.join(cells)} |" + (" NOT VERIFIED" if unverified else ""))
print()
for (dtype, name), rs in sorted(ratios.items()):
    g = math.exp(sum(math.log(r) for r in rs) / len(rs))
    print(f"- {dtype} {name}: geometric mean {g:.3f}× over {len(rs)} shapes, lowest {min(rs):.2f}×, highest {max(rs):.2f}×")
