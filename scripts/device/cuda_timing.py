"""The timing both PyTorch scripts use (baseline.py, torch_matmul.py): median of repeats by CUDA
events after a warm-up by count and by time."""
import math
import statistics
import time

import torch


def timed(fn, repeats=10, warmup=3, warmup_s=0.25, back_to_back=False):
    """Median seconds of one call of `fn`. With back_to_back, each timed repeat is copies of the
    call launched one after the other between two events, enough for about a millisecond (at most
    64), and its time their span over the copies: as tilekit times a matmul
    (Gpu::measure_back_to_back_async), so that a short kernel keeps the GPU's clock up on both
    sides."""
    # Warm up by count and by time, as tilekit bench does: the GPU lowers its clocks when idle.
    start = time.perf_counter()
    n = 0
    while n < warmup or time.perf_counter() - start < warmup_s:
        fn()
        torch.cuda.synchronize()
        n += 1
    copies = 1
    if back_to_back:
        once = span(fn, 1)
        copies = max(1, min(64, math.ceil(1e-3 / once))) if once > 0 else 1
    out = [span(fn, copies) / copies for _ in range(repeats)]
    return statistics.median(out)


def span(fn, copies):
    """Seconds between events recorded around `copies` calls of `fn`."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(copies):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / 1e3
