//! Figures in units that fit them, for text output (JSON keeps SI base units): 12.3 µs rather
//! than 0.0 ms, 1.6 MB/s rather than 0.0 GB/s.

fn scaled(v: f64, unit: &str, steps: &[(f64, &str)]) -> String {
    if !v.is_finite() {
        return format!("{v} {unit}");
    }
    let a = v.abs();
    for (scale, prefix) in steps {
        if a >= *scale {
            return format!("{} {prefix}{unit}", three(v / scale));
        }
    }
    let (scale, prefix) = steps.last().expect("steps");
    format!("{} {prefix}{unit}", three(v / scale))
}

/// Three significant figures, no exponent.
fn three(x: f64) -> String {
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

const SI: [(f64, &str); 5] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")];

/// Seconds as s, ms, µs or ns.
pub fn time(seconds: f64) -> String {
    scaled(
        seconds,
        "s",
        &[(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")],
    )
}

/// One bandwidth unit for a whole lesson, the one that fits its largest figure, so that its
/// lines, its key and its chart read in the same unit (not 848 kB/s beside 1.98 MB/s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    scale: f64,
    label: &'static str,
}

impl Rate {
    /// The unit that fits `largest` bytes per second.
    pub fn fitting(largest: f64) -> Rate {
        const LABELS: [&str; 5] = ["TB/s", "GB/s", "MB/s", "kB/s", "B/s"];
        let a = largest.abs();
        let i = SI.iter().position(|(s, _)| a >= *s).unwrap_or(SI.len() - 1);
        Rate {
            scale: SI[i].0,
            label: LABELS[i],
        }
    }

    /// `bytes_per_second` in this unit, with it (`1.98 MB/s`).
    pub fn show(self, bytes_per_second: f64) -> String {
        format!("{} {}", three(bytes_per_second / self.scale), self.label)
    }

    /// `bytes_per_second` as a number in this unit, for a chart.
    pub fn of(self, bytes_per_second: f64) -> f64 {
        bytes_per_second / self.scale
    }

    /// The unit's name (`MB/s`).
    pub fn label(self) -> &'static str {
        self.label
    }
}

/// Bytes per second as B/s, kB/s, MB/s, GB/s or TB/s.
pub fn bandwidth(bytes_per_second: f64) -> String {
    scaled(bytes_per_second, "B/s", &SI)
}

/// Floating-point operations per second as FLOP/s with an SI prefix.
pub fn flops(per_second: f64) -> String {
    scaled(per_second, "FLOP/s", &SI)
}

/// Operations per second with an SI prefix.
pub fn ops(per_second: f64) -> String {
    scaled(per_second, "op/s", &SI)
}

/// A byte count as B, kB, MB, GB.
pub fn bytes(b: f64) -> String {
    scaled(b, "B", &SI)
}

#[cfg(test)]
mod tests {
    #[test]
    fn units_fit_the_number() {
        assert_eq!(super::time(0.0000123), "12.3 µs");
        assert_eq!(super::time(0.25), "250 ms");
        assert_eq!(super::time(3.0), "3.00 s");
        assert_eq!(super::bandwidth(1.6e6), "1.60 MB/s");
        assert_eq!(super::bandwidth(2.8e12), "2.80 TB/s");
        assert_eq!(super::flops(32.2e12), "32.2 TFLOP/s");
        assert_eq!(super::bandwidth(12.0), "12.0 B/s");
        let r = super::Rate::fitting(1.98e6);
        assert_eq!((r.show(848e3), r.label()), ("0.85 MB/s".into(), "MB/s"));
        assert!((r.of(1.98e6) - 1.98).abs() < 1e-12);
    }
}
