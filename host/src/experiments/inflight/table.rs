//! Tables of experiment 4.
