//! Waves and tails: how a grid of output tiles fills the GPU. A GEMM of `tiles` blocks on `sms`
//! SMs holding `blocks_per_sm` each runs in `tiles / (sms x blocks_per_sm)` waves; the last one
//! is partial unless that is whole, and a comparison of two occupancies at a size where either
//! side ends on a partial wave measures the tail as much as the occupancy. [`whole_wave_size`]
//! picks, before any timing, a size near the asked one at which every compared side runs whole
//! waves.

/// Output tiles of an `m` x `n` product cut into `tile_m` x `tile_n` tiles (edges rounded up).
pub fn tiles(m: u64, n: u64, tile_m: u64, tile_n: u64) -> u64 {
    m.div_ceil(tile_m) * n.div_ceil(tile_n)
}

/// A grid of tiles on a GPU: the tiles and the blocks resident at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Waves {
    pub tiles: u64,
    /// SMs x blocks/SM: the tiles one wave runs.
    pub slots: u64,
    /// Parts of a tile its last wave is shared out in: 1 where tiles are dealt whole; a tile's
    /// K slices where a persistent grid streams its last partial wave (each slot takes an equal
    /// run of that wave's slices: `kernels_gpu::sections::wgemm_tail`).
    pub grain: u64,
}

impl Waves {
    pub fn new(tiles: u64, sms: u32, blocks_per_sm: u32) -> Self {
        Self {
            tiles,
            slots: u64::from(sms) * u64::from(blocks_per_sm),
            grain: 1,
        }
    }

    /// These waves with the last one shared out in `grain` parts of a tile.
    pub fn streamed(self, grain: u64) -> Self {
        Self {
            grain: grain.max(1),
            ..self
        }
    }

    /// Waves, fractional: 3.88 is three whole waves and one 88% full.
    pub fn waves(&self) -> f64 {
        self.tiles as f64 / self.slots as f64
    }

    /// Waves / waves rounded up: the share of the slots the run keeps busy, wave by wave (1 for
    /// whole waves; a lone tile on a fresh wave makes it small), rounded up in parts of a tile
    /// where the last wave is streamed.
    pub fn tail_efficiency(&self) -> f64 {
        // Widened and with a slot at least, so that a record's nonsense (no blocks, a count past
        // u64) gives a figure rather than a panic.
        let parts = u128::from(self.tiles) * u128::from(self.grain);
        let slots = u128::from(self.slots.max(1));
        parts as f64 / (slots * parts.div_ceil(slots)) as f64
    }

    /// Whether every wave is full.
    pub fn whole(&self) -> bool {
        self.tiles.is_multiple_of(self.slots)
    }
}

/// One side of an occupancy comparison: its tile and the blocks/SM it runs at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Side {
    pub tile_m: u64,
    pub tile_n: u64,
    pub blocks_per_sm: u32,
}

/// The `m` x `n` nearest to `around` (in the log of the area, then the more square) at which
/// every side runs whole waves on `sms` SMs without partial tiles: `m` and `n` multiples of
/// every side's tile, each side's tiles a multiple of its slots. Searches up to four times the
/// asked area; None when nothing fits there (or with no sides).
pub fn whole_wave_size(around: (u64, u64), sides: &[Side], sms: u32) -> Option<(u64, u64)> {
    let step_m = sides.iter().map(|s| s.tile_m).reduce(lcm)?;
    let step_n = sides.iter().map(|s| s.tile_n).reduce(lcm)?;
    let area = (around.0 as f64) * (around.1 as f64);
    let fits = |m: u64, n: u64| {
        sides
            .iter()
            .all(|s| Waves::new(tiles(m, n, s.tile_m, s.tile_n), sms, s.blocks_per_sm).whole())
    };
    // Distance from the asked size: the log of the area ratio, then the log of the aspect ratio.
    let distance = |m: u64, n: u64| {
        let (m, n) = (m as f64, n as f64);
        ((m * n / area).ln().abs(), (m / n).ln().abs())
    };
    // n >= step_n, so m stops where m x step_n passes four times the area; n likewise.
    let most_m = (4.0 * area / (step_m * step_n) as f64).floor() as u64;
    let mut best: Option<((f64, f64), (u64, u64))> = None;
    for m in (1..=most_m).map(|a| a * step_m) {
        let most_n = (4.0 * area / (m * step_n) as f64).floor() as u64;
        for n in (1..=most_n).map(|b| b * step_n) {
            let d = distance(m, n);
            if fits(m, n) && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, (m, n)));
            }
        }
    }
    best.map(|(_, size)| size)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200_SMS: u32 = 132;

    /// A record's nonsense (no slots, tiles past u64 with a grain) gives a figure, not a panic.
    #[test]
    fn a_tail_of_no_slots_or_huge_counts_is_a_figure() {
        let none = Waves {
            tiles: 5,
            slots: 0,
            grain: 1,
        };
        assert_eq!(none.tail_efficiency(), 1.0);
        let huge = Waves {
            tiles: u64::MAX,
            slots: 132,
            grain: 64,
        };
        assert!(huge.tail_efficiency() > 0.99 && huge.tail_efficiency() <= 1.0);
    }

    #[test]
    fn tiles_round_the_edges_up() {
        assert_eq!(tiles(4096, 4096, 64, 64), 4096);
        assert_eq!(tiles(4095, 4097, 128, 256), 32 * 17);
        assert_eq!(tiles(1, 1, 128, 256), 1);
    }

    #[test]
    fn waves_and_tails_of_the_default_regs_line() {
        // 4096 tiles at 8 and 6 blocks/SM on 132 SMs: 3.88 and 5.17 waves.
        let at8 = Waves::new(4096, H200_SMS, 8);
        assert!((at8.waves() - 4096.0 / 1056.0).abs() < 1e-12);
        assert!((at8.tail_efficiency() - 4096.0 / 1056.0 / 4.0).abs() < 1e-12);
        assert!(!at8.whole());
        let at6 = Waves::new(4096, H200_SMS, 6);
        assert!((at6.waves() - 4096.0 / 792.0).abs() < 1e-12);
        assert!((at6.tail_efficiency() - 4096.0 / 792.0 / 6.0).abs() < 1e-12);
        // Whole waves: efficiency exactly 1.
        let whole = Waves::new(3168, H200_SMS, 8);
        assert!(whole.whole());
        assert_eq!(whole.tail_efficiency(), 1.0);
        // 2048 tiles of 128 slices on 132 blocks: 15.5 tiles a block; dealt whole, the last
        // round is 52% full; streamed, the busiest block runs 15 tiles and 66 slices.
        let w = Waves::new(2048, 132, 1);
        assert!((w.tail_efficiency() - 2048.0 / 132.0 / 16.0).abs() < 1e-12);
        let s = w.streamed(128);
        assert_eq!(s.waves(), w.waves());
        let busiest = 15.0 * 128.0 + 66.0;
        assert!((s.tail_efficiency() - 2048.0 * 128.0 / (132.0 * busiest)).abs() < 1e-12);
        assert_eq!(whole.waves(), 3.0);
    }

    #[test]
    fn one_tile_past_a_wave_costs_almost_half() {
        let w = Waves::new(133, H200_SMS, 1);
        assert!(!w.whole());
        assert!((w.tail_efficiency() - 133.0 / 264.0).abs() < 1e-12);
    }

    #[test]
    fn the_whole_wave_size_near_4096_squared_for_8_against_6_blocks_is_3072_by_4224() {
        // 64x64 tiles at 8 and at 6 blocks/SM: the tiles must be a multiple of 1056 and of 792,
        // so of 3168; 3168 tiles is nearer 4096 in area than 6336, and 48 x 66 its squarest
        // split: the size the issue that asked for whole waves picked by hand.
        let side = |b| Side {
            tile_m: 64,
            tile_n: 64,
            blocks_per_sm: b,
        };
        let size = whole_wave_size((4096, 4096), &[side(8), side(6)], H200_SMS);
        assert_eq!(size, Some((3072, 4224)));
        let (m, n) = size.unwrap();
        for b in [8, 6] {
            assert!(Waves::new(tiles(m, n, 64, 64), H200_SMS, b).whole());
        }
    }

    #[test]
    fn sides_with_other_tiles_get_a_size_without_partial_tiles() {
        let sides = [
            Side {
                tile_m: 128,
                tile_n: 256,
                blocks_per_sm: 1,
            },
            Side {
                tile_m: 128,
                tile_n: 128,
                blocks_per_sm: 2,
            },
        ];
        let (m, n) = whole_wave_size((8192, 8192), &sides, H200_SMS).unwrap();
        assert_eq!((m % 128, n % 256), (0, 0));
        for s in sides {
            let w = Waves::new(tiles(m, n, s.tile_m, s.tile_n), H200_SMS, s.blocks_per_sm);
            assert!(w.whole(), "{s:?} at {m}x{n}: {} waves", w.waves());
        }
    }

    #[test]
    fn no_sides_or_no_room_gives_none() {
        assert_eq!(whole_wave_size((4096, 4096), &[], H200_SMS), None);
        // A tile larger than four times the asked area leaves nothing to search.
        let huge = Side {
            tile_m: 1 << 20,
            tile_n: 1 << 20,
            blocks_per_sm: 1,
        };
        assert_eq!(whole_wave_size((64, 64), &[huge], H200_SMS), None);
    }
}
