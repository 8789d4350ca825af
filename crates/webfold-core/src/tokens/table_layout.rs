// The layout of the compiled rank tables, shared word for word by build.rs
// (which writes them) and `tokens::bpe` (which reads them): the two sides
// must hash the same way, so the code lives in one file both `include!`.
//
// A table is open addressing with linear probing over little-endian u32
// slots. A slot holds the offset of a token's record (22 bits) and 10 more
// bits of the hash, so most probes that miss are rejected without touching
// the record. A record is `[len: u8][rank: u24 LE][bytes]`.

/// Slot value of an empty slot; no record offset/tag pair produces it.
pub const EMPTY_SLOT: u32 = u32::MAX;
/// Bits of a slot that hold the hash tag.
pub const TAG_BITS: u32 = 10;
/// Bytes before a record's token bytes.
pub const RECORD_HEADER: usize = 4;
/// Longest token a record can hold (its length is a byte); the longest in
/// o200k and cl100k are 128 bytes.
pub const MAX_TOKEN_LEN: usize = 255;

const SEED: u64 = 0x9E37_79B9_7F4A_7C15;

/// Hash of a byte string: word-at-a-time multiply-rotate, then murmur3's
/// finaliser so both the low (index) and high (tag) bits are well mixed.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(SEED);
    let mut rest = bytes;
    while let Some((word, tail)) = rest.split_first_chunk::<8>() {
        h = (h ^ u64::from_le_bytes(*word)).wrapping_mul(SEED).rotate_left(29);
        rest = tail;
    }
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        for (w, b) in word.iter_mut().zip(rest) {
            *w = *b;
        }
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(SEED).rotate_left(29);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The tag a slot stores for a hash.
#[inline]
pub fn hash_tag(h: u64) -> u32 {
    (h >> (64 - TAG_BITS)) as u32
}
