//! Seeded inputs for the lessons, the autotuner, the bench and `run`: the same numbers on every
//! platform (the browser included) from a 64-bit seed, with no dependency. SplitMix64
//! (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): fast, and
//! plenty for test data; not for anything that must be unpredictable.

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The stream for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in [0, 1), 24 random bits (every value exact in f32).
    pub fn unit_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// Uniform in [-1, 1).
    pub fn sym_f32(&mut self) -> f32 {
        2.0 * self.unit_f32() - 1.0
    }
}

/// `n` values uniform in [-1, 1) from `seed`.
pub fn uniform_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Rng::new(seed);
    (0..n).map(|_| r.sym_f32()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_seeded_in_range_and_not_constant() {
        let a = uniform_f32(10_000, 7);
        assert_eq!(a, uniform_f32(10_000, 7));
        assert_ne!(a, uniform_f32(10_000, 8));
        assert!(a.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean = a.iter().map(|&x| x as f64).sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.05, "mean {mean}");
        let mut r = Rng::new(1);
        let odd = (0..1000).filter(|_| r.next_u32() & 1 == 1).count();
        assert!((400..600).contains(&odd), "{odd}");
    }
}
