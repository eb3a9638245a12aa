"""Turn a `tilekit tune` cache into tilekit's measured defaults for a device profile
(src/kernels/matmul/measured/PROFILE.json), shipped for every adapter of that profile that has
no tuning cache of its own.
  python3 scripts/device/measured.py TUNE_JSON PROFILE "DATE AND COMMAND" > src/kernels/matmul/measured/PROFILE.json
The cache must hold exactly one adapter."""
import json
import sys

cache, profile, date = sys.argv[1], sys.argv[2], sys.argv[3]
adapters = json.load(open(cache))["adapters"]
if len(adapters) != 1:
    sys.exit(f"{cache} holds {len(adapters)} adapters; expected one")
(adapter, winners), = adapters.items()
# The rates the same tune measured (tilekit's `tune::rates`), where its shape set had any.
rates = json.load(open(cache)).get("rates", {}).get(adapter, {})
print(json.dumps({"profile": profile, "measured_on": adapter, "date": date, "winners": winners,
                  "rates": rates}, indent=2, sort_keys=True, ensure_ascii=False))
