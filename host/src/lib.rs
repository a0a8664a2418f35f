//! The occupancy lab's host side: experiments, occupancy calculator, tables and reports.

pub mod modules;
pub mod occupancy;
pub mod report;
pub mod results;
