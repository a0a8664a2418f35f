//! Plots of experiment 5.
