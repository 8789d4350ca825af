//! Vectors grown by half, not doubled, for the per-page tables that are a
//! view's largest while it is built: doubling leaves up to half of such a
//! table empty at the peak, growing by half a third.

/// Pushes `item`, growing `list` by half its length (at least `least`
/// places) when it is full.
pub(crate) fn push_by_half<T>(list: &mut Vec<T>, item: T, least: usize) {
    if list.len() == list.capacity() {
        list.reserve_exact((list.len() / 2).max(least));
    }
    list.push(item);
}
