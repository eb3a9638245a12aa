"""PyTorch's matmul time for each shape given ("M K N"), f32 (cuBLAS, TF32 off) and f16 (f32
accumulation), median of 10 after warm-up by CUDA events, one line per shape and precision:
  python3 scripts/device/torch_matmul.py "1 4096 4096" "4 14336 4096" ..."""
import sys

import torch
from cuda_timing import timed

torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


for shape in sys.argv[1:]:
    m, k, n = map(int, shape.split())
    for name, dtype in (("f32", torch.float32), ("f16", torch.float16)):
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        t = timed(lambda: a @ b, back_to_back=True)
        print(f"torch {name} {shape} {t * 1e6:.2f} us {k * n * a.element_size() / t / 1e9:.0f} GB/s of B")
