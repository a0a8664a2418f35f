//! The buffers a run keeps for the builds it times again at whole waves: one problem size's at a
//! time, since a pair's builds share a size and the next pair often does too.

use crate::experiments::error::ExperimentError;
use crate::experiments::gemm_figures::GemmFigures;
use crate::experiments::gemm_sides::{GemmKind, GemmSides};
use crate::results::GemmDims;

/// One problem's buffers at the last whole-wave size timed (none before the first).
pub struct WholeWaveBuffers<K: GemmKind>(Option<GemmSides<K>>);

impl<K: GemmKind> Default for WholeWaveBuffers<K> {
    fn default() -> Self {
        Self(None)
    }
}

impl<K: GemmKind> WholeWaveBuffers<K> {
    /// A build's figures at the whole-wave size `size`: its figures at the plan's size where that
    /// is `size` (`planned`: the plan's size and the build's figures there), otherwise `measure`d
    /// in buffers of `size`, made by `make` where the kept ones are of another size.
    pub fn figures_at(
        &mut self,
        size: GemmDims,
        (planned, figures): (GemmDims, &GemmFigures),
        make: impl FnOnce(GemmDims) -> Result<GemmSides<K>, ExperimentError>,
        measure: impl FnOnce(&mut GemmSides<K>) -> Result<GemmFigures, ExperimentError>,
    ) -> Result<GemmFigures, ExperimentError> {
        if size == planned {
            return Ok(figures.clone());
        }
        if self.0.as_ref().is_none_or(|b| b.dims() != size) {
            // The previous size's buffers go before the next are made.
            drop(self.0.take());
            self.0 = Some(make(size)?);
        }
        measure(self.0.as_mut().expect("made above"))
    }
}
