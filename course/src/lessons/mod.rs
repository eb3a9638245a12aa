//! The lessons, one file per kernel family, each registered by one line in [`all`]. Lesson 01,
//! the device query, belongs to no family and lives in [`crate::tour`].

use crate::lesson::Lesson;

pub mod blur;
pub mod carve;
pub mod histogram;
pub mod matmul;
pub mod reduce;
pub mod reverse;
pub mod transpose;
pub mod wide;

/// Every family's lessons, in the registry's order (the tour sorts them by number).
pub fn all() -> Vec<Lesson> {
    let mut all = matmul::LESSONS.to_vec();
    all.push(reverse::LESSON);
    all.push(reduce::LESSON);
    all.push(transpose::LESSON);
    all.push(histogram::LESSON);
    all.push(wide::LESSON);
    all.push(blur::LESSON);
    all.push(carve::LESSON);
    all
}
