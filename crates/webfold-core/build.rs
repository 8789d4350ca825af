//! Compiles the BPE vocabularies in `vocab/` into lookup tables the binary
//! embeds, so counting tokens starts without building a hash map of 200,000
//! tokens (tiktoken-rs spent ~100 ms of every process start on that).
//!
//! `vocab/NAME.bin.gz` is each token's bytes in rank order, as `[len: u8][bytes]`,
//! gzipped (the test `vendored_vocabularies_are_tiktokens` pins it to tiktoken-rs).
//! Out come, per vocabulary, in `OUT_DIR`:
//! - `NAME.records`: `[len: u8][rank: u24 LE][bytes]` per token;
//! - `NAME.table`: the hash table over the records (see `table_layout.rs`);
//! - `NAME.pairs`: the rank of every two-byte token, indexed by the two bytes
//!   (the first step of every merge looks those up).

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

include!("src/tokens/table_layout.rs");

const VOCABULARIES: [&str; 2] = ["o200k_base", "cl100k_base"];

fn main() {
    println!("cargo::rerun-if-changed=src/tokens/table_layout.rs");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for name in VOCABULARIES {
        let src = format!("vocab/{name}.bin.gz");
        println!("cargo::rerun-if-changed={src}");
        let gz = std::fs::read(&src).unwrap_or_else(|e| panic!("cannot read {src}: {e}"));
        let mut vocab = Vec::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_end(&mut vocab)
            .unwrap_or_else(|e| panic!("cannot unzip {src}: {e}"));
        let tokens = parse(&vocab).unwrap_or_else(|e| panic!("{src}: {e}"));
        let (records, table, pairs) = compile(&tokens).unwrap_or_else(|e| panic!("{src}: {e}"));
        for (ext, bytes) in [("records", records), ("table", table), ("pairs", pairs)] {
            let path = out.join(format!("{name}.{ext}"));
            std::fs::write(&path, bytes)
                .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        }
    }
}

fn parse(vocab: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut tokens = Vec::new();
    let mut rest = vocab;
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len);
        if len == 0 || len > tail.len() || len > MAX_TOKEN_LEN {
            return Err(format!("bad token length {len} at rank {}", tokens.len()));
        }
        tokens.push(&tail[..len]);
        rest = &tail[len..];
    }
    Ok(tokens)
}

type Tables = (Vec<u8>, Vec<u8>, Vec<u8>);

fn compile(tokens: &[&[u8]]) -> Result<Tables, String> {
    let mut records = Vec::new();
    let mut offsets = Vec::with_capacity(tokens.len());
    let mut ranks: HashMap<&[u8], u32> = HashMap::new();
    for (rank, token) in tokens.iter().enumerate() {
        let rank = u32::try_from(rank).map_err(|_| "too many tokens")?;
        if rank >= 1 << 24 {
            return Err("ranks must fit 24 bits".into());
        }
        if ranks.insert(token, rank).is_some() {
            return Err(format!("token of rank {rank} appears twice"));
        }
        offsets.push(records.len());
        records.push(token.len() as u8);
        records.extend_from_slice(&rank.to_le_bytes()[..3]);
        records.extend_from_slice(token);
    }
    // Offsets share a slot with the tag; the largest offset and tag together
    // must stay below the empty marker.
    if records.len() >= (1 << (32 - TAG_BITS)) - 1 {
        return Err("records too large for the slot layout".into());
    }

    let slots = (tokens.len() * 2).next_power_of_two();
    let mask = slots - 1;
    let mut table = vec![EMPTY_SLOT; slots];
    for (token, offset) in tokens.iter().zip(&offsets) {
        let h = hash_bytes(token);
        let mut i = h as usize & mask;
        while table[i] != EMPTY_SLOT {
            i = (i + 1) & mask;
        }
        table[i] = ((*offset as u32) << TAG_BITS) | hash_tag(h);
    }

    let mut pairs = vec![u32::MAX; 1 << 16];
    for (&token, &rank) in &ranks {
        if let [a, b] = token {
            pairs[usize::from(*a) << 8 | usize::from(*b)] = rank;
        }
    }

    let le = |words: &[u32]| {
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    Ok((records, le(&table), le(&pairs)))
}
