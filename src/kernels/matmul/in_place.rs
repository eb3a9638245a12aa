//! Which ragged operands a fast variant reads where they lie and which it copies into rows of 4
//! first (the `pad` pass in `support.rs`): a skinny product reads both in place
//! ([`loads_in_place`]); the pipelined kernel decides each operand by how many blocks read it
//! ([`IN_PLACE_REUSE`]). The modules that read them are forms of each kernel's
//! [`super::source::Source`].

use super::Shape;

/// `M·N/(M+N)` up to which a ragged product is read in place ([`loads_in_place`]).
pub const IN_PLACE_UP_TO: u64 = 128;

/// Whether a ragged K or N is read where it lies (four scalar loads per vec4 of the ragged
/// operand: the `*_ragged.wgsl` loads of the pipelined, small-M and cooperative kernels) rather
/// than copied into rows of 4 first (the `pad` pass). Copying costs a pass over the operand; the
/// scalar loads cost every slice of the product. Per element copied, A is used N times and B M
/// times, so the copies pay where `M·N/(M+N)` is large. On the H100 (BENCHMARKS.md,
/// 2026-11-25), µs, copied against in place, the pipelined kernel: 17×4099×4097 91 against 50,
/// 33×4097×11007 272 against 187, 64×4095×4095 114 against 81, 65×4099×1001 45.5 against 36.7
/// (61), 8191×4095×61 212 against 143, 2047×2049×63 39.4 against 28.4; but 1023×2049×515 (342)
/// 85.0 against 85.7, 777×1234×2345 (584) 157 against 176, 2049×1000×1031 141 against 169,
/// 2048×2048×2047 417 against 446, 4095³ 3136 against 3303. The cooperative kernel, f16:
/// 16×4099×4097 58.9 against 33.6, 64×4095×4095 65.0 against 39.9, 128×4095×4097 (124) 71.5
/// against 48.3, 8191×4095×61 101.7 against 89.0; but 256×4095×4097 (241) 101.0 against 101.5,
/// 777×1234×2345 48.9 against 66.8, 4095³ 613 against 735. Every shape of up to 16 rows (the
/// small-M kernel's) meets the rule.
pub fn loads_in_place(shape: Shape) -> bool {
    let (m, n) = (shape.m as u64, shape.n as u64);
    InPlace::ragged(shape).any_in_place() && m * n <= IN_PLACE_UP_TO * (m + n)
}

/// The ragged operands that a main step reads where they lie, each vec4 of them from four scalar
/// loads (the `*_ragged.wgsl` loads); a ragged operand not read in place is copied into rows of 4
/// first. A ragged K misaligns only A's rows, a ragged N only B's, so each is decided alone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InPlace {
    /// A, where K is ragged.
    pub(crate) a: bool,
    /// B, where N is ragged.
    pub(crate) b: bool,
}

/// The number of blocks that read each element of a ragged operand up to which the pipelined
/// kernel reads it where it lies rather than copying it into rows of 4 first, on products that
/// are not skinny ([`loads_in_place`] decides those): A is read by the ⌈N/BN⌉ blocks of a row of
/// blocks, B by the ⌈M/BM⌉ of a column. Copying an operand costs one pass over its bytes;
/// reading it in place costs four scalar loads per vec4 in every block that reads it, on the
/// H100 about a seventh of the copy per block (BENCHMARKS.md 2026-11-26, 64×64×8: A of
/// 3000×5001×700 copied saved 24 µs of the 68 its scalar loads cost at 11 blocks). Measured
/// (2026-11-27, µs, copied against in place): 3763×13101×250 in 128×256 blocks, A (197 MB) read
/// by one block, 688 against 594 (with the ragged C's new store); 409×8673×280 (5 blocks) 82.0
/// against 76.8; 4934×6957×355 (6) 726 against 701; 300×8192×3001, B by 5, 451 against 423;
/// 1000×1001×1003, both by 8, 66.2 against 67.3 (so 8 is past the bound).
pub const IN_PLACE_REUSE: u32 = 6;

impl InPlace {
    /// Every ragged operand of `shape`: A where K is ragged, B where N is (a row of A or of B
    /// then starts anywhere).
    pub(crate) fn ragged(shape: Shape) -> InPlace {
        InPlace {
            a: !shape.k.is_multiple_of(4),
            b: !shape.n.is_multiple_of(4),
        }
    }

    /// Both ragged operands where [`loads_in_place`] says so, else none.
    pub(crate) fn skinny(shape: Shape) -> InPlace {
        if loads_in_place(shape) {
            InPlace::ragged(shape)
        } else {
            InPlace::default()
        }
    }

    /// For blocks of BM×BN: both ragged operands of a skinny product ([`loads_in_place`]), else
    /// each ragged operand that at most [`IN_PLACE_REUSE`] blocks read (A ⌈N/BN⌉, B ⌈M/BM⌉).
    pub(crate) fn by_reuse(shape: Shape, bm: u32, bn: u32) -> InPlace {
        if loads_in_place(shape) {
            return InPlace::ragged(shape);
        }
        let ragged = InPlace::ragged(shape);
        InPlace {
            a: ragged.a && shape.n.div_ceil(bn) <= IN_PLACE_REUSE,
            b: ragged.b && shape.m.div_ceil(bm) <= IN_PLACE_REUSE,
        }
    }

    /// Whether any operand is read in place.
    pub(crate) fn any_in_place(self) -> bool {
        self.a || self.b
    }
}

#[cfg(test)]
mod tests {
    use super::{InPlace, IN_PLACE_REUSE};
    use crate::kernels::matmul::Shape;

    fn shape(m: u32, k: u32, n: u32) -> Shape {
        Shape { m, k, n }
    }

    /// Each ragged operand alone: A in place where at most IN_PLACE_REUSE blocks of a row read it
    /// (⌈N/BN⌉), B where at most as many of a column do (⌈M/BM⌉); an aligned operand never, and a
    /// skinny product both.
    #[test]
    fn each_ragged_operand_is_read_in_place_where_few_blocks_read_it() {
        let r = IN_PLACE_REUSE;
        let at = |m, k, n, bm, bn| InPlace::by_reuse(shape(m, k, n), bm, bn);
        // 3763×13101×250 in 128×256 blocks: A (197 MB) read by one block; B by 30.
        assert_eq!(
            at(3763, 13101, 250, 128, 256),
            InPlace { a: true, b: false }
        );
        // The same product in 64×64 blocks: A read by 4.
        assert_eq!(at(3763, 13101, 250, 64, 64), InPlace { a: true, b: false });
        // At the bound and one past it, for each operand.
        assert!(at(2000, 301, 64 * r, 64, 64).a && !at(2000, 301, 64 * r + 1, 64, 64).a);
        assert!(at(64 * r, 64, 2001, 64, 64).b && !at(64 * r + 1, 64, 2001, 64, 64).b);
        // An aligned operand is never read in place, however few blocks read it.
        assert_eq!(at(3000, 5000, 257, 64, 64), InPlace { a: false, b: false });
        assert_eq!(at(200, 5001, 2048, 64, 64), InPlace { a: false, b: false });
        // 777×1234×2345 and 1000×1001×1003: both read by many blocks, both copied.
        assert_eq!(at(777, 1234, 2345, 64, 64), InPlace::default());
        assert_eq!(at(1000, 1001, 1003, 128, 128), InPlace::default());
        // Skinny (M·N/(M+N) <= 128): both in place, whatever the blocks.
        assert_eq!(at(17, 4099, 4097, 32, 128), InPlace { a: true, b: true });
        assert_eq!(
            InPlace::skinny(shape(17, 4099, 4097)),
            InPlace { a: true, b: true }
        );
        assert_eq!(InPlace::skinny(shape(777, 1234, 2345)), InPlace::default());
    }
}
