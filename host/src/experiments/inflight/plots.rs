//! Plots of experiment 4.
