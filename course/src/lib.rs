//! # tilekit-course
//!
//! The course on top of the [`tilekit`] library: each lesson of the CUDA shared-memory material
//! (PMPP chapter 4, Harris's reduction and shared-memory articles) as a runnable program that
//! verifies its kernels and prints what the lesson predicts beside what was measured
//! ([`lessons`], run in order by [`tour`]); the exercises, where the learner writes the kernel and
//! a checker says what is wrong with it ([`exercise`]); and the HTML report of a run
//! ([`report`]). No files and no terminal: the `tilekit` command and the web page both use it.

#![warn(missing_docs)]

pub mod exercise;
pub mod lesson;
pub mod lessons;
pub mod report;
pub mod tour;
pub mod trace;
pub mod units;
