//! The occupancy lab's host side: experiments, occupancy calculator, tables and reports.

pub mod cli;
pub mod cuda;
pub mod experiments;
pub mod modules;
pub mod occupancy;
pub mod report;
pub mod results;
pub mod results_io;
pub mod sampling;
pub mod tables;
pub mod timing;
