//! Tables of experiment 5.
