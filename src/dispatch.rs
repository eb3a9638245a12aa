//! Folding a 1-D launch into 2-D so that no dimension exceeds
//! `max_compute_workgroups_per_dimension` (CUDA's 65,535-block grid limit).
//!
//! Every tilekit shader recovers its linear workgroup index the same way:
//! `let wg = wid.x + wid.y * nwg.x;` (`wid` = `workgroup_id`, `nwg` = `num_workgroups`), and treats
//! `wg >= count` as "no work", because the fold may launch a few more workgroups than asked.

use serde::Serialize;

/// A launch grid: `x * y >= count` workgroups, each dimension at most the adapter's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Dispatch {
    /// Workgroups that have work (the linear count asked for).
    pub count: u32,
    /// Grid width.
    pub x: u32,
    /// Grid height.
    pub y: u32,
}

impl Dispatch {
    /// Fold `count` workgroups into a grid whose dimensions are at most `max_per_dimension`.
    /// Returns `None` only when even a square grid cannot hold them (count > max²).
    pub fn linear(count: u32, max_per_dimension: u32) -> Option<Dispatch> {
        let max = max_per_dimension.max(1);
        if count <= max {
            return Some(Dispatch {
                count,
                x: count.max(1),
                y: 1,
            });
        }
        let y = count.div_ceil(max);
        if y > max {
            return None;
        }
        // Spread the rows evenly so that the idle tail is less than one row.
        let x = count.div_ceil(y);
        Some(Dispatch { count, x, y })
    }

    /// [`Dispatch::linear`] for `count` workgroups of the launch `what`, or a typed error when
    /// they do not fit in 32 bits or in a square grid of `max_per_dimension`².
    pub fn fold(what: &str, count: u64, max_per_dimension: u32) -> crate::Result<Dispatch> {
        u32::try_from(count)
            .ok()
            .and_then(|c| Dispatch::linear(c, max_per_dimension))
            .ok_or_else(|| crate::Error::SizeOverflow {
                what: format!("{what} launch"),
                detail: format!(
                    "{count} workgroups exceed max_compute_workgroups_per_dimension² = {max_per_dimension}²"
                ),
            })
    }

    /// Workgroups launched, including the idle tail of the last row.
    pub fn launched(&self) -> u64 {
        self.x as u64 * self.y as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_launches_stay_one_dimensional() {
        assert_eq!(
            Dispatch::linear(1, 65_535),
            Some(Dispatch {
                count: 1,
                x: 1,
                y: 1
            })
        );
        assert_eq!(Dispatch::linear(65_535, 65_535).unwrap().y, 1);
    }

    #[test]
    fn large_launches_fold_and_cover_every_workgroup() {
        for count in [65_536u32, 70_000, 1_000_003, 65_535 * 65_535] {
            let d = Dispatch::linear(count, 65_535).unwrap();
            assert!(d.x <= 65_535 && d.y <= 65_535, "{d:?}");
            assert!(d.launched() >= count as u64, "{d:?}");
            // The idle tail is less than one row.
            assert!(d.launched() - (count as u64) < d.x as u64, "{d:?}");
        }
        assert_eq!(Dispatch::linear(u32::MAX, 1000), None);
        let e = Dispatch::fold("huge", 1 << 40, 65_535).unwrap_err();
        assert!(
            e.to_string()
                .contains("max_compute_workgroups_per_dimension"),
            "{e}"
        );
    }
}
