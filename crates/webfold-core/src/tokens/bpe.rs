//! Byte-pair merging over the rank tables build.rs compiles into the binary.
//!
//! The merge loops follow tiktoken's own (`_byte_pair_merge` below 100 bytes,
//! the heap-based `_byte_pair_merge_large` above) step for step, ties
//! included, so the pieces they produce, and so the counts, are tiktoken's.
//! Only the number of tokens is kept: nothing here decodes.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

mod layout {
    #![allow(dead_code)]
    include!("table_layout.rs");
}
pub(super) use layout::hash_bytes;
use layout::{EMPTY_SLOT, MAX_TOKEN_LEN, RECORD_HEADER, TAG_BITS, hash_tag};

type Rank = u32;
const NONE: Rank = Rank::MAX;

/// Pieces this long or longer use the heap-based merge, as tiktoken does.
const LARGE_PIECE: usize = 100;

/// Pieces looked up together (see `Vocab::count`).
const BATCH: usize = 16;

// Memos of piece counts, direct-mapped by hash. Pages repeat their pieces
// (tags, attribute names, class names, URL parts), so most pieces were
// counted before:
// - every piece of up to 14 bytes, in 32 KB that stay in cache while the
//   vocabulary's megabytes do not;
// - pieces of up to 30 bytes that needed merging (a dozen lookups each), in
//   512 KB of pages touched only as they fill;
// - longer ones that needed merging, mostly runs of indentation: hundreds
//   of spaces, merged in hundreds of steps, in the same few lengths.
const SHORT_KEY: usize = 14;
const SHORT_SLOTS: usize = 1 << 11;
const MERGED_KEY: usize = 30;
const MERGED_SLOTS: usize = 1 << 14;
const LONG_SLOTS: usize = 1 << 9;

const TAG_MASK: u32 = (1 << TAG_BITS) - 1;

/// A memo holding its pieces inline: entries `[len][count][piece…]` of `W`
/// bytes, so pieces of up to `W - 2` bytes (and so tokens).
struct InlineMemo<const W: usize> {
    entries: Vec<[u8; W]>,
    /// Which bits of the hash pick the entry, so memos do not collide alike.
    shift: u32,
}

impl<const W: usize> InlineMemo<W> {
    fn new(slots: usize, shift: u32) -> Self {
        InlineMemo {
            // Zeroed (empty), so the allocator maps it lazily.
            entries: vec![[0; W]; slots],
            shift,
        }
    }

    fn slot(&self, h: u64) -> usize {
        (h >> self.shift) as usize & (self.entries.len() - 1)
    }

    #[inline]
    fn get(&self, h: u64, piece: &[u8]) -> Option<usize> {
        let entry = self.entries.get(self.slot(h))?;
        (usize::from(entry[0]) == piece.len() && entry.get(2..2 + piece.len()) == Some(piece))
            .then_some(usize::from(entry[1]))
    }

    #[inline]
    fn put(&mut self, h: u64, piece: &[u8], count: usize) {
        let slot = self.slot(h);
        if let Some(entry) = self.entries.get_mut(slot)
            && let Some(key) = entry.get_mut(2..2 + piece.len())
        {
            key.copy_from_slice(piece);
            // Both fit a byte: the piece is at most W - 2 bytes, and a
            // piece has at most as many tokens as bytes.
            entry[0] = piece.len() as u8;
            entry[1] = count as u8;
        }
    }
}

/// What counting keeps between pieces and between calls, for one
/// vocabulary: merge scratch space and the memos.
pub(super) struct Scratch {
    parts: Vec<(usize, Rank)>,
    short: InlineMemo<{ SHORT_KEY + 2 }>,
    merged: InlineMemo<{ MERGED_KEY + 2 }>,
    long: Vec<Option<(Box<[u8]>, usize)>>,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            parts: Vec::new(),
            short: InlineMemo::new(SHORT_SLOTS, 24),
            merged: InlineMemo::new(MERGED_SLOTS, 36),
            long: vec![None; LONG_SLOTS],
        }
    }
}

/// A piece waiting for its lookup, with what the batch loaded for it.
#[derive(Clone, Copy, Default)]
struct Pending {
    start: usize,
    end: usize,
    h: u64,
    slot: u32,
    /// Length byte of the record `slot` points to, when its tag matches.
    len: Option<u8>,
}

/// One vocabulary's compiled tables, borrowed from the binary.
pub(super) struct Vocab {
    records: &'static [u8],
    table: &'static [u8],
    pairs: &'static [u8],
    mask: usize,
}

macro_rules! vocab {
    ($name:literal) => {
        Vocab::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".records")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".table")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".pairs")),
        )
    };
}

pub(super) static O200K_BASE: Vocab = vocab!("o200k_base");
pub(super) static CL100K_BASE: Vocab = vocab!("cl100k_base");

#[inline]
fn word(bytes: &[u8], index: usize) -> u32 {
    match bytes.get(index * 4..index * 4 + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => EMPTY_SLOT,
    }
}

impl Vocab {
    const fn new(records: &'static [u8], table: &'static [u8], pairs: &'static [u8]) -> Vocab {
        // build.rs sizes the table to a power of two.
        let slots = table.len() / 4;
        Vocab {
            records,
            table,
            pairs,
            mask: slots.saturating_sub(1),
        }
    }

    /// The rank of `piece` if it is a token.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<Rank> {
        if let [a, b] = piece {
            let r = word(self.pairs, usize::from(*a) << 8 | usize::from(*b));
            return (r != NONE).then_some(r);
        }
        if piece.is_empty() || piece.len() > MAX_TOKEN_LEN {
            return None;
        }
        self.rank_hashed(piece, hash_bytes(piece))
    }

    /// `rank` for a piece of 3 to `MAX_TOKEN_LEN` bytes whose hash is known.
    #[inline]
    fn rank_hashed(&self, piece: &[u8], h: u64) -> Option<Rank> {
        let tag = hash_tag(h);
        let mut i = h as usize & self.mask;
        // The table is at most half full, so an empty slot ends every probe.
        for _ in 0..=self.mask {
            let slot = word(self.table, i);
            if slot == EMPTY_SLOT {
                return None;
            }
            if slot & TAG_MASK == tag {
                let at = (slot >> TAG_BITS) as usize;
                if let Some([len, r0, r1, r2]) = self.records.get(at..at + RECORD_HEADER)
                    && usize::from(*len) == piece.len()
                    && self
                        .records
                        .get(at + RECORD_HEADER..at + RECORD_HEADER + piece.len())
                        == Some(piece)
                {
                    return Some(u32::from_le_bytes([*r0, *r1, *r2, 0]));
                }
            }
            i = (i + 1) & self.mask;
        }
        None
    }

    /// Whether the record a slot points to holds `piece`.
    #[inline]
    fn record_is(&self, slot: u32, piece: &[u8]) -> bool {
        let at = (slot >> TAG_BITS) as usize + RECORD_HEADER;
        self.records.get(at..at + piece.len()) == Some(piece)
    }

    #[inline]
    fn pair(&self, a: u8, b: u8) -> Rank {
        word(self.pairs, usize::from(a) << 8 | usize::from(b))
    }

    /// Tokens of a text's pieces (byte ranges of `bytes`).
    ///
    /// Lookups go in batches: first every piece's hash, then every table
    /// slot they start at, then every record a slot points to, then the
    /// answers. The loads of one pass do not wait on each other, so the
    /// processor overlaps their cache misses, which are most of what
    /// counting costs: the tables are megabytes and a page's pieces land
    /// all over them.
    pub fn count(
        &self,
        bytes: &[u8],
        mut pieces: impl Iterator<Item = Range<usize>>,
        scratch: &mut Scratch,
    ) -> usize {
        let mut total = 0;
        let mut batch = [Pending::default(); BATCH];
        loop {
            let mut n = 0;
            for r in pieces.by_ref() {
                let Some(piece) = bytes.get(r.clone()) else {
                    continue;
                };
                match self.quick(piece, scratch) {
                    Ok(count) => total += count,
                    Err(h) => {
                        batch[n] = Pending {
                            start: r.start,
                            end: r.end,
                            h,
                            ..Pending::default()
                        };
                        n += 1;
                        if n == BATCH {
                            break;
                        }
                    }
                }
            }
            let pending = &mut batch[..n];
            for p in pending.iter_mut() {
                p.slot = word(self.table, p.h as usize & self.mask);
            }
            for p in pending.iter_mut() {
                if p.slot != EMPTY_SLOT && p.slot & TAG_MASK == hash_tag(p.h) {
                    p.len = self.records.get((p.slot >> TAG_BITS) as usize).copied();
                }
            }
            for p in pending.iter() {
                let piece = bytes.get(p.start..p.end).unwrap_or_default();
                total += self.resolve(piece, p, scratch);
            }
            if n < BATCH {
                return total;
            }
        }
    }

    /// A piece's count when it needs no vocabulary lookup (short pieces,
    /// pieces in the memo), else its hash for the lookup.
    #[inline]
    fn quick(&self, piece: &[u8], scratch: &Scratch) -> Result<usize, u64> {
        match piece {
            [] => Ok(0),
            [_] => Ok(1),
            // Every byte is a token, so a pair is one token or two.
            [a, b] => Ok(1 + usize::from(self.pair(*a, *b) == NONE)),
            _ => {
                let h = hash_bytes(piece);
                scratch.short.get(h, piece).ok_or(h)
            }
        }
    }

    /// A looked-up piece's count, from the loads `count` made ahead.
    #[inline]
    fn resolve(&self, piece: &[u8], p: &Pending, scratch: &mut Scratch) -> usize {
        let is_token = if p.slot == EMPTY_SLOT || piece.len() > MAX_TOKEN_LEN {
            false
        } else if p.len.map(usize::from) == Some(piece.len()) && self.record_is(p.slot, piece) {
            true
        } else {
            // A tag collision or a token further along the probe.
            self.rank_hashed(piece, p.h).is_some()
        };
        let n = if is_token {
            1
        } else if piece.len() <= MERGED_KEY {
            match scratch.merged.get(p.h, piece) {
                Some(n) => n,
                None => {
                    let n = self.merge_small(piece, &mut scratch.parts);
                    scratch.merged.put(p.h, piece, n);
                    n
                }
            }
        } else {
            let slot = (p.h >> 36) as usize & (LONG_SLOTS - 1);
            match scratch.long.get(slot) {
                Some(Some((key, n))) if **key == *piece => *n,
                _ => {
                    let n = if piece.len() < LARGE_PIECE {
                        self.merge_small(piece, &mut scratch.parts)
                    } else {
                        self.merge_large(piece)
                    };
                    if let Some(entry) = scratch.long.get_mut(slot) {
                        *entry = Some((piece.into(), n));
                    }
                    n
                }
            }
        };
        scratch.short.put(p.h, piece, n);
        n
    }

    /// tiktoken's `_byte_pair_merge`: (start, rank of the pair starting
    /// there) per part; merge the lowest rank (leftmost on ties) until no
    /// pair is a token. O(n·merges), fast for the short pieces most are.
    fn merge_small(&self, piece: &[u8], parts: &mut Vec<(usize, Rank)>) -> usize {
        parts.clear();
        let mut min = (NONE, usize::MAX);
        for (i, w) in piece.windows(2).enumerate() {
            let rank = self.pair(w[0], w[1]);
            if rank < min.0 {
                min = (rank, i);
            }
            parts.push((i, rank));
        }
        parts.push((piece.len() - 1, NONE));
        parts.push((piece.len(), NONE));

        let rank_at = |parts: &[(usize, Rank)], i: usize| -> Rank {
            match (parts.get(i), parts.get(i + 3)) {
                (Some(&(start, _)), Some(&(end, _))) => piece
                    .get(start..end)
                    .and_then(|p| self.rank(p))
                    .unwrap_or(NONE),
                _ => NONE,
            }
        };
        while min.0 != NONE {
            let i = min.1;
            if i > 0 {
                parts[i - 1].1 = rank_at(parts, i - 1);
            }
            parts[i].1 = rank_at(parts, i);
            parts.remove(i + 1);
            min = (NONE, usize::MAX);
            for (j, &(_, rank)) in parts[..parts.len() - 1].iter().enumerate() {
                if rank < min.0 {
                    min = (rank, j);
                }
            }
        }
        parts.len() - 1
    }

    /// tiktoken's `_byte_pair_merge_large`: the same merges in the same
    /// order, with the candidates in a heap and the parts in a linked list,
    /// O(n log n) for long runs such as minified code or base64.
    fn merge_large(&self, piece: &[u8]) -> usize {
        struct State {
            prev: usize,
            end: usize,
            next_end: usize,
            next_rank: Rank,
        }
        let n = piece.len();
        let mut state: Vec<State> = Vec::with_capacity(n);
        let mut heap = BinaryHeap::with_capacity(n);
        state.push(State {
            prev: usize::MAX,
            end: 1,
            next_end: 2,
            next_rank: NONE,
        });
        for i in 0..n - 1 {
            let rank = self.pair(piece[i], piece[i + 1]);
            if rank != NONE {
                heap.push(Merge { start: i, rank });
                state[i].next_rank = rank;
            }
            state.push(State {
                prev: i,
                end: i + 2,
                next_end: i + 3,
                next_rank: NONE,
            });
        }

        let potential = |state: &mut Vec<State>,
                         heap: &mut BinaryHeap<Merge>,
                         start: usize,
                         next_end: usize| {
            state[start].next_end = next_end;
            state[start].next_rank = NONE;
            if next_end <= n
                && let Some(rank) = piece.get(start..next_end).and_then(|p| self.rank(p))
            {
                heap.push(Merge { start, rank });
                state[start].next_rank = rank;
            }
        };

        while let Some(left) = heap.pop() {
            if left.rank == NONE {
                break;
            }
            if left.rank != state[left.start].next_rank {
                continue;
            }
            let left_start = left.start;
            let right_start = state[left_start].end;
            let right_end = state[left_start].next_end;
            let right_next_end = state[right_start].next_end;

            state[left_start].end = right_end;
            potential(&mut state, &mut heap, left_start, right_next_end);
            if right_end < state.len() {
                state[right_end].prev = left_start;
            }
            if left_start > 0 {
                let prev_start = state[left_start].prev;
                potential(&mut state, &mut heap, prev_start, right_end);
            }
            state[right_start].next_rank = NONE;
        }

        let mut count = 0;
        let mut i = 0;
        while i < state.len() {
            count += 1;
            i = state[i].end;
        }
        count
    }
}

/// A candidate merge: the lowest rank pops first, then the leftmost.
#[derive(PartialEq, Eq)]
struct Merge {
    start: usize,
    rank: Rank,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.start.cmp(&self.start))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
