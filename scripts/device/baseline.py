"""PyTorch's figures for the work `tilekit bench` does, timed in the same session on the same GPU:
cuBLAS f32 matmul with TF32 off on every shape of the bench's shape set (read from its JSON),
cuBLAS f16 matmul (f32 accumulation, PyTorch's default) on every shape of its f16 set,
torch.sum over 512 MiB and 1 GiB of f32, a device-to-device copy, and the wall time of one whole
synchronised call (a 512³ matmul read back to the host, a sum of 2^20 floats read back) and of 16
queued products read back once.
Median of repeats after warm-up, CUDA events (wall clock for the calls). Prints JSON."""
import json
import re
import statistics
import sys
import time

import torch
from cuda_timing import timed

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
dev = torch.device("cuda")


def wall(fn, repeats=50, warmup=10):
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


rows = []
# Fresh process: the 1 GiB sum first, then 512 MiB.
for log2 in (28, 27):
    n = 1 << log2
    x = torch.randn(n, device=dev)
    t = timed(lambda: torch.sum(x))
    rows.append({"work": f"torch.sum, 2^{log2} f32", "median_s": t, "bytes_per_second": 4 * n / t})
    del x
shapes, shapes16 = [], []
for path in sys.argv[1:]:
    for e in json.load(open(path))["entries"]:
        m = re.match(r"matmul-shape/(\d+)x(\d+)x(\d+)$", e["name"])
        if m:
            shapes.append(tuple(int(v) for v in m.groups()))
        m = re.match(r"matmul-f16/shape/(\d+)x(\d+)x(\d+)$", e["name"]) or re.match(
            r"matmul-unseen/f16/(\d+)x(\d+)x(\d+)$", e["name"])
        if m:
            shapes16.append(tuple(int(v) for v in m.groups()))
            continue
        m = re.match(r"matmul-unseen/(\d+)x(\d+)x(\d+)$", e["name"])
        if m:
            shapes.append(tuple(int(v) for v in m.groups()))
for dtype, name, todo in ((torch.float32, "matmul", shapes), (torch.float16, "f16 matmul", shapes16)):
    for (m, k, n) in todo:
        x = torch.randn(m, k, device=dev, dtype=dtype)
        y = torch.randn(k, n, device=dev, dtype=dtype)
        t = timed(lambda: x @ y, back_to_back=True)
        rows.append({"work": f"{name} {m}x{k}x{n}", "median_s": t, "flop_per_second": 2 * m * k * n / t})
        del x, y
n = 1 << 28
src = torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device=dev)
dst = torch.empty_like(src)
t = timed(lambda: dst.copy_(src))
rows.append({"work": "device copy, 1 GiB of random words (read + write counted)", "median_s": t, "bytes_per_second": 8 * n / t})
del src, dst
x = torch.randn(512, 512, device=dev)
y = torch.randn(512, 512, device=dev)
rows.append({"work": "call: 512^3 matmul, C read back to the host (wall)", "median_s": wall(lambda: (x @ y).cpu())})


def queued(count):
    """`count` products launched back to back (CUDA queues them), then C read back: what
    `tilekit bench`'s `matmul-call/queued-512` does with `Gpu::matmul_queue`."""
    def run():
        for _ in range(count):
            c = x @ y
        c.cpu()
    return run


rows.append({"work": "call: 512^3 matmul, 16 queued then C read back (wall, per product)", "median_s": wall(queued(16)) / 16})
rows.append({"work": "call: 512^3 matmul, synchronised, C left on the GPU (wall)", "median_s": wall(lambda: ((x @ y), torch.cuda.synchronize()))})
v = torch.randn(1 << 20, device=dev)
rows.append({"work": "call: sum of 2^20 f32, .item() (wall)", "median_s": wall(lambda: torch.sum(v).item())})
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "rows": rows}, indent=1))
