"""PyTorch's figures for the sizes `tilekit bench` uses, timed in the same session on the same GPU:
cuBLAS f32 matmul with TF32 off, torch.sum over f32, and a device-to-device copy.
Median of repeats after warm-up, CUDA events. Prints JSON."""
import json
import statistics
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
dev = torch.device("cuda")


def timed(fn, repeats=10, warmup=3, warmup_s=0.25):
    # Warm up by count and by time, as tilekit bench does: the GPU lowers its clocks when idle.
    import time
    start = time.perf_counter()
    n = 0
    while n < warmup or time.perf_counter() - start < warmup_s:
        fn()
        torch.cuda.synchronize()
        n += 1
    out = []
    for _ in range(repeats):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b) / 1e3)
    return statistics.median(out)


rows = []
for n in (4096, 8192):
    x = torch.randn(n, n, device=dev)
    y = torch.randn(n, n, device=dev)
    t = timed(lambda: x @ y)
    rows.append({"work": f"f32 matmul {n}^3 (cuBLAS, TF32 off)", "median_s": t, "tflops": 2 * n**3 / t / 1e12})
    del x, y
n = 1 << 27  # 512 MiB of f32, as tilekit bench's reduce
x = torch.randn(n, device=dev)
t = timed(lambda: torch.sum(x))
rows.append({"work": "torch.sum, 2^27 f32 (512 MiB)", "median_s": t, "gbps": 4 * n / t / 1e9})
del x
n = 1 << 28  # 1 GiB of 32-bit words, as tilekit bench's copy ceiling
# Random words (as tilekit's ceiling), and constant ones to show what compressible data does.
for name, src in (("random", torch.randint(-(2**31), 2**31 - 1, (n,), dtype=torch.int32, device=dev)),
                  ("all ones", torch.ones(n, dtype=torch.int32, device=dev))):
    dst = torch.empty_like(src)
    t = timed(lambda: dst.copy_(src))
    rows.append({"work": f"device copy, 1 GiB of {name} (read + write counted)", "median_s": t, "gbps": 8 * n / t / 1e9})
    del src, dst
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "rows": rows}, indent=1))
sys.stdout.flush()
