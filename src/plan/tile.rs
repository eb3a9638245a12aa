//! [`Tile`]: a tile as the planner makes it and the launch sets it, the values of a kernel's
//! `override` constants by the names its shader declares (`TILE`; `BM`, `BN`, `BK`; `WG`).

use serde::Serialize;

/// Values of a kernel's override constants, by name: a whole tile as a candidate sets it
/// ([`super::Candidate::tile`], [`super::Plan::tile`]), or part of one that picks a candidate
/// (`Tile::of([("BM", 64), ("BN", 64), ("BK", 8)])` picks the 64×64×8 block whatever else it
/// sets). The command line names tiles by their labels (`TILE=16`, `128x128x16`) and turns a
/// label into a `Tile` against the kernel's candidates ([`super::Planner::tile_named`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Tile {
    constants: Vec<(String, u32)>,
}

impl Tile {
    /// A tile of these constants.
    pub fn of<S: Into<String>>(constants: impl IntoIterator<Item = (S, u32)>) -> Tile {
        Tile {
            constants: constants.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }

    /// The TILE×TILE tile of the tiled matmul, the transpose and the blur (PMPP fig 4.16).
    pub fn square(tile: u32) -> Tile {
        Tile::of([("TILE", tile)])
    }

    /// The BM×BN block of C, BK deep, of the blocked, pipelined and cooperative matmuls.
    pub fn block(bm: u32, bn: u32, bk: u32) -> Tile {
        Tile::of([("BM", bm), ("BN", bn), ("BK", bk)])
    }

    /// The value of the constant `name`, if the tile sets it.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.constants
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    }

    /// Every constant it sets, in the shader's order.
    pub fn constants(&self) -> &[(String, u32)] {
        &self.constants
    }

    /// Whether `whole` sets every constant this tile sets, to the same value.
    pub fn picks(&self, whole: &Tile) -> bool {
        !self.constants.is_empty() && self.constants.iter().all(|(k, v)| whole.get(k) == Some(*v))
    }
}

impl std::fmt::Display for Tile {
    /// `BM=64, BN=64, BK=8`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .constants
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::Tile;

    #[test]
    fn a_part_of_a_tile_picks_the_whole_one() {
        let whole = Tile::of([("BM", 64), ("BN", 64), ("BK", 8), ("GROUP", 1)]);
        assert!(Tile::of([("BM", 64), ("BK", 8)]).picks(&whole));
        assert!(!Tile::of([("BM", 64), ("BK", 16)]).picks(&whole));
        assert!(!Tile::of([("TILE", 64)]).picks(&whole));
        assert!(!Tile::default().picks(&whole));
        assert_eq!(whole.get("GROUP"), Some(1));
        assert_eq!(whole.to_string(), "BM=64, BN=64, BK=8, GROUP=1");
    }
}
