//! What the experiments' claim tests share: a verdict's evidence checked for the words it must
//! say, printed whole where it does not.

use crate::claim::Verdict;

/// Asserts that `v`'s evidence says `words`.
#[track_caller]
pub(crate) fn says(v: &Verdict, words: &str) {
    assert!(v.evidence.contains(words), "{}", v.evidence);
}
