//! The table's generic compile-time comparisons (const fns: no allocation, no iterators), in a
//! leaf so that the table's parts and its typed rules (`table_rules.rs`) can all use them.

/// Whether no two items of the slice `$items` are alike by `$alike`, a const expression over
/// references `$a` and `$b` to the two: the pairwise walk every uniqueness rule of the table
/// shares (a macro: const fns take no closures).
macro_rules! no_two_alike {
    ($items:expr, |$a:ident, $b:ident| $alike:expr) => {{
        let items = $items;
        let mut unique = true;
        let mut i = 0;
        while unique && i < items.len() {
            let mut j = i + 1;
            while unique && j < items.len() {
                let ($a, $b) = (&items[i], &items[j]);
                unique = !($alike);
                j += 1;
            }
            i += 1;
        }
        unique
    }};
}

pub(crate) const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Non-empty and strictly ascending (so no value twice).
pub(crate) const fn strictly_ascending(xs: &[u32]) -> bool {
    let mut i = 1;
    while i < xs.len() {
        if xs[i] <= xs[i - 1] {
            return false;
        }
        i += 1;
    }
    !xs.is_empty()
}
