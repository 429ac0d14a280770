//! (being written)
use super::{Decoded, Isa, Words};

pub(super) fn decode(_isa: Isa, _words: &Words<'_>) -> Option<Decoded> {
    None
}
