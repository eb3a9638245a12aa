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
/// times, so the copies pay where `M·N/(M+N)` is large; below the bound [`IN_PLACE_UP_TO`] the
/// scalar loads were faster at every skinny shape measured, above it the copies were, for the
/// pipelined and the cooperative kernel alike (BENCHMARKS.md, "Ragged operands: copied or read
/// in place"). Every shape of up to 16 rows (the small-M kernel's) meets the rule.
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
/// GPU a fraction of the copy per block, so the copy pays once more than six blocks read the
/// operand and not before (BENCHMARKS.md, "Ragged operands: copied or read in place").
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
