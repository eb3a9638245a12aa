# Sourced by test.sh (after vulkan.sh, for apt_install): the Python interpreter the NumPy tests
# run, with NumPy installed for that interpreter. The interpreter is $TILEKIT_PYTHON, else the
# `python3` on the PATH, which need not be Debian's (a pyenv shim, a venv, conda): NumPy is
# installed where that interpreter looks, with pip, or with apt when it is Debian's own
# (whose site-packages pip may not touch, PEP 668). tests/numpy.rs runs $TILEKIT_PYTHON.

# The interpreter's answer to `import numpy`: its version, or nothing.
numpy_version() {
  "$1" -c "import numpy; print(numpy.__version__)" 2>/dev/null || true
}

# Whether the interpreter's packages belong to the system's package manager (PEP 668).
externally_managed() {
  "$1" - <<'PY' 2>/dev/null
import os, sys, sysconfig
sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)
PY
}

# ensure_numpy [PYTHON]: resolve the interpreter, install NumPy for it if it lacks it, export
# TILEKIT_PYTHON and say which interpreter and which NumPy the tests use.
ensure_numpy() {
  local py=${1:-${TILEKIT_PYTHON:-}}
  if [ -z "$py" ]; then
    py=$(command -v python3 || true)
  fi
  if [ -z "$py" ]; then
    echo "no python3 found: installing Debian's python3 and python3-numpy" >&2
    apt_install python3 python3-numpy
    py=$(command -v python3)
  fi
  # A shim (pyenv) resolves to the interpreter it runs; name that one in the log.
  local real
  real=$("$py" -c "import sys; print(sys.executable)" 2>/dev/null || echo "$py")
  if [ -z "$(numpy_version "$py")" ]; then
    if externally_managed "$py"; then
      echo "no NumPy for $real (managed by the system): installing python3-numpy" >&2
      apt_install python3-numpy
    else
      echo "no NumPy for $real: installing it with that interpreter's pip" >&2
      "$py" -m pip --version >/dev/null 2>&1 || "$py" -m ensurepip --upgrade >/dev/null 2>&1 || true
      "$py" -m pip install --quiet --disable-pip-version-check numpy >&2 ||
        echo "pip could not install NumPy for $real" >&2
    fi
  fi
  local v
  v=$(numpy_version "$py")
  if [ -z "$v" ]; then
    echo "error: $real cannot import numpy, and installing it failed; set TILEKIT_PYTHON to an interpreter that has NumPy" >&2
    return 1
  fi
  export TILEKIT_PYTHON="$real"
  echo "python for the NumPy tests: $real ($("$py" --version 2>&1)), numpy $v" >&2
}
