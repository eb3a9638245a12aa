"""The timing both PyTorch scripts use (baseline.py, torch_matmul.py): median of repeats by CUDA
events after a warm-up by count and by time."""
import statistics
import time

import torch


def timed(fn, repeats=10, warmup=3, warmup_s=0.25):
    # Warm up by count and by time, as tilekit bench does: the GPU lowers its clocks when idle.
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
