"""Every `tilekit run` kernel x every dtype it accepts x 1-d / 2-d / empty inputs, in and out
through .npy files, compared with NumPy's own answer: bit for bit where the kernel moves data
(reverse, transpose), within float32's error bound where it computes (matmul, blur, reduce), and
dtype, shape and byte order checked on the file tilekit wrote. Run by tests/numpy.rs:
    python3 tests/numpy_e2e.py TILEKIT_BINARY
Prints one line per case and exits 1 if any failed."""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

exe = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="tilekit-numpy-")
atexit.register(shutil.rmtree, tmp, ignore_errors=True)
rng = np.random.default_rng(12345)
failures = []
cases = 0

DTYPES = ["<f4", ">f4", "<f8", "<f2", "<i4", "<u4", "|u1"]
FLOATS = ["<f4", ">f4", "<f8", "<f2"]


def data(dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.uniform(-1, 1, size=shape)
    elif dt.kind == "i":
        x = rng.integers(-1000, 1000, size=shape)
    else:
        x = rng.integers(0, 250 if dt.itemsize == 1 else 2**31, size=shape)
    return x.astype(dt)


def save(name, x):
    p = os.path.join(tmp, name)
    np.save(p, x)
    return p


def run(*args):
    r = subprocess.run([exe, "run", *args, "--json"], capture_output=True, text=True)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = {"unparsed": r.stdout}
    return r.returncode, out, r.stderr


def check(name, ok, detail=""):
    global cases
    cases += 1
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def same_file(name, got_path, want):
    got = np.load(got_path)
    if got.dtype != want.dtype or got.shape != want.shape:
        check(name, False, f"wrote {got.dtype} {got.shape}, NumPy gives {want.dtype} {want.shape}")
        return None
    return got


# Data movers: bit for bit, any dtype, 1-d / 2-d / empty.
for kernel, numpy_op in (("reverse", np.flip), ("transpose", np.transpose)):
    for dtype in DTYPES:
        for shape in ((1001,), (37, 53), (0,), (0, 5)):
            name = f"{kernel} {dtype} {shape}"
            x = data(dtype, shape)
            src = save(f"{kernel}-in.npy", x)
            dst = os.path.join(tmp, f"{kernel}-out.npy")
            code, out, err = run(kernel, "--input", src, "-o", dst)
            if code != 0:
                check(name, False, f"exit {code}: {err.strip()[-300:]}")
                continue
            want = numpy_op(x)
            got = same_file(name, dst, want)
            if got is not None:
                check(name, np.array_equal(got.view(np.uint8), np.ascontiguousarray(want).view(np.uint8))
                      and out.get("verified") is True, "bits differ or not verified")

# matmul: float dtypes, NumPy's result dtype, float32 error bound.
for da, db in (("<f4", "<f4"), ("<f8", "<f8"), ("<f4", "<f8"), ("<f2", "<f2"), (">f4", ">f4")):
    for (m, k, n) in ((33, 47, 29), (1, 64, 5), (0, 3, 4), (3, 0, 4)):
        name = f"matmul {da}@{db} {m}x{k}x{n}"
        a, b = data(da, (m, k)), data(db, (k, n))
        pa, pb = save("a.npy", a), save("b.npy", b)
        dst = os.path.join(tmp, "c.npy")
        code, out, err = run("matmul", "--a", pa, "--b", pb, "-o", dst)
        if code != 0:
            # f16 needs SHADER_F16: refused with exit 2 and a reason where the adapter lacks it.
            check(name, code == 2 and da == "<f2" and "f16" in err.lower(), f"exit {code}: {err.strip()[-300:]}")
            continue
        want = a @ b
        got = same_file(name, dst, want.astype(want.dtype.newbyteorder(np.dtype(da).byteorder)) if np.dtype(da).byteorder == ">" else want)
        if got is not None:
            exact = a.astype(np.float64) @ b.astype(np.float64)
            mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
            tol = (k + 2) * 2.0**-23 * mag + (mag * 2.0**-10 if "f2" in da else 0) + 1e-30
            check(name, bool(np.all(np.abs(got.astype(np.float64) - exact) <= tol)) and out.get("verified") is True,
                  "outside the bound or not verified")

# matmul --compute f16: float32 files computed on the f16 kernels come back float32, within the
# bound of rounding each operand to f16 once (2^-9 of sum |a*b|).
for (m, k, n) in ((33, 47, 29), (2, 130, 7)):
    name = f"matmul --compute f16 <f4 {m}x{k}x{n}"
    a, b = data("<f4", (m, k)), data("<f4", (k, n))
    pa, pb = save("a.npy", a), save("b.npy", b)
    dst = os.path.join(tmp, "c.npy")
    code, out, err = run("matmul", "--a", pa, "--b", pb, "--compute", "f16", "-o", dst)
    if code != 0:
        check(name, code == 2 and "f16" in err.lower(), f"exit {code}: {err.strip()[-300:]}")
        continue
    got = same_file(name, dst, a @ b)
    if got is not None:
        exact = a.astype(np.float64) @ b.astype(np.float64)
        mag = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
        tol = (k + 2) * 2.0**-23 * mag + mag * 2.0**-9 + 1e-30
        check(name, bool(np.all(np.abs(got.astype(np.float64) - exact) <= tol)) and out.get("verified") is True,
              "outside the bound or not verified")

# blur: float dtypes, written back in the input's dtype.
for dtype in FLOATS:
    for shape in ((23, 31), (0, 0)):
        name = f"blur {dtype} {shape}"
        x = data(dtype, shape)
        src = save("img.npy", x)
        dst = os.path.join(tmp, "blurred.npy")
        code, out, err = run("blur", "--input", src, "--radius", "2", "-o", dst)
        if code != 0:
            check(name, False, f"exit {code}: {err.strip()[-300:]}")
            continue
        got = same_file(name, dst, np.empty(shape, dtype=dtype))
        if got is not None:
            check(name, out.get("verified") is True and got.dtype == np.dtype(dtype), "not verified")

# reduce: the sum of every element, NumPy's value within the float32 bound (integers exact mod 2^32).
for dtype in DTYPES:
    for shape in ((1001,), (37, 53), (0,)):
        name = f"reduce sum {dtype} {shape}"
        x = data(dtype, shape)
        src = save("r.npy", x)
        dst = os.path.join(tmp, "sum.npy")
        code, out, err = run("reduce", "--input", src, "-o", dst)
        if code != 0:
            check(name, False, f"exit {code}: {err.strip()[-300:]}")
            continue
        got = np.load(dst)
        if np.dtype(dtype).kind == "f":
            exact = x.astype(np.float64).sum()
            tol = 2.0**-20 * np.abs(x.astype(np.float64)).sum() + (2.0**-10 * abs(exact) if "f2" in dtype else 0) + 1e-30
            ok = got.shape == () and got.dtype == np.dtype(dtype).newbyteorder("=") or got.dtype == np.dtype(dtype)
            check(name, ok and abs(float(got) - exact) <= tol, f"{got.dtype} {got} vs {exact}")
        else:
            exact = int(x.astype(np.int64).sum()) % 2**32
            check(name, got.shape == () and int(got.astype(np.int64)) % 2**32 == exact, f"{got.dtype} {got} vs {exact}")

# reduce min and max: one of the input's own values, bit for bit and in its dtype and byte order,
# as NumPy's (float64 too, though the GPU compares in float32).
for dtype in DTYPES:
    for op, f in (("min", np.min), ("max", np.max)):
        name = f"reduce {op} {dtype}"
        x = data(dtype, (37, 53))
        src = save("r.npy", x)
        dst = os.path.join(tmp, "ext.npy")
        code, out, err = run("reduce", "--input", src, "--op", op, "-o", dst)
        if code != 0:
            check(name, False, f"exit {code}: {err.strip()[-300:]}")
            continue
        got = np.load(dst)
        want = np.array(f(x), dtype=x.dtype)
        check(name, got.shape == () and got.dtype == want.dtype and got.tobytes() == want.tobytes(),
              f"{got.dtype} {got!r} vs {want.dtype} {want!r}")

# histogram: uint8 and uint32 inputs, 256 bins of the low byte.
for dtype in ("|u1", "<u4"):
    name = f"histogram {dtype}"
    x = data(dtype, (5003,))
    src = save("h.npy", x)
    code, out, err = run("histogram", "--input", src)
    want = np.bincount((x.astype(np.uint32) & 255).ravel(), minlength=256).tolist()
    check(name, code == 0 and out.get("bins") == want and out.get("verified") is True, f"exit {code} {err.strip()[-200:]}")

print(f"{cases} cases, {len(failures)} failed")
sys.exit(1 if failures else 0)
