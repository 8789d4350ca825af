//! Deterministic mutations for the smoke run: a fixed PRNG, libFuzzer's kind
//! of byte edits (flip, overwrite, erase, duplicate, splice another input,
//! insert a dictionary token), so every test run replays the same inputs.

/// Markup that changes how a page parses.
pub const HTML_TOKENS: &[&[u8]] = &[
    b"<",
    b"</",
    b">",
    b"/>",
    b"<!--",
    b"-->",
    b"<![CDATA[",
    b"<!DOCTYPE html>",
    b"<html>",
    b"<body>",
    b"<table><tr><td>",
    b"</td></tr></table>",
    b"<template>",
    b"<svg><foreignObject>",
    b"<math><mi>",
    b"<select><option>",
    b"<form><input type=checkbox checked>",
    b"<button aria-label=\"x\">",
    b"<a href=\"/x\">",
    b"<iframe srcdoc=\"<p>\">",
    b"<ul><li>",
    b"<h1>",
    b"<p>",
    b"<div hidden>",
    b"<div style=\"display:none\">",
    b"<div role=\"dialog\" aria-modal=\"true\">",
    b"<script>",
    b"</script>",
    b"<style>",
    b"<meta charset=\"shift_jis\">",
    b"<meta http-equiv=\"content-type\" content=\"text/html; charset=utf-16\">",
    b"<base href=\"//x/\">",
    b"&amp;",
    b"&#0;",
    b"&#x10FFFF;",
    b"&nbsp",
    b"\xEF\xBB\xBF",
    b"\xFF\xFE",
    b"\x00",
    b"\xF0\x9F\x98\x80",
    b"\r\n",
    b" ",
    b"\"",
    b"'",
    b"=",
];

/// Selector syntax.
pub const SELECTOR_TOKENS: &[&[u8]] = &[
    b" ",
    b">",
    b"+",
    b"~",
    b",",
    b"*",
    b"#",
    b".",
    b"[",
    b"]",
    b"(",
    b")",
    b"\\",
    b"\"",
    b"|",
    b"*|",
    b"[href^=\"/\" i]",
    b"[lang|=en]",
    b":nth-child(2n+1 of .item)",
    b":nth-last-of-type(-n+3)",
    b":not(",
    b":is(",
    b":where(",
    b":has(",
    b":first-child",
    b":empty",
    b":root",
    b":checked",
    b":disabled",
    b":lang(fr)",
    b"::before",
    b"\\31 ",
    b"\\0",
];

/// Snapshot YAML.
pub const YAML_TOKENS: &[&[u8]] = &[
    b"- ",
    b"  ",
    b"\n",
    b": ",
    b":",
    b"# ",
    b" #",
    b"[ref=e1]",
    b"[ref=f1e2]",
    b"[cursor=pointer]",
    b"[level=2]",
    b"[checked]",
    b"[active]",
    b"- text: ",
    b"- /url: ",
    b"- /placeholder: ",
    b"\"",
    b"'",
    b"\\\"",
    b"\\u0000",
    b"\\n",
    b"button \"Go\"",
    b"link \"Home\"",
    b"heading \"T\" [level=1]",
    b"(unchanged since previous page)",
];

/// Request lines, headers, routes and parameters.
pub const HTTP_TOKENS: &[&[u8]] = &[
    b"GET ",
    b"POST ",
    b"DELETE ",
    b"OPTIONS ",
    b"\r\n",
    b"\n\n",
    b"host: 127.0.0.1:3456\n",
    b"origin: http://127.0.0.1:3456\n",
    b"origin: https://evil.example\n",
    b"content-type: application/json\n",
    b"accept: application/json, text/event-stream\n",
    b"authorization: Bearer x\n",
    b"content-length: 9999999\n",
    b"access-control-request-method: POST\n",
    b"/conversations/{id}",
    b"/chunk",
    b"/outline",
    b"/snapshot",
    b"/markdown",
    b"/cnt",
    b"/find",
    b"/refresh",
    b"/mcp",
    b"/health",
    b"?",
    b"&",
    b"=",
    b"%",
    b"%ZZ",
    b"%00",
    b"selector=",
    b"id=",
    b"ref=e1",
    b"max_tokens=",
    b"18446744073709551616",
    b"-1",
    b"{\"html\":\"<p>x</p>\"}",
    b"{}",
    b"null",
];

/// JSON-RPC and MCP vocabulary.
pub const JSON_TOKENS: &[&[u8]] = &[
    b"\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"",
    b"\\u0000",
    b"\\ud800",
    b"null",
    b"true",
    b"1e999",
    b"-0",
    b"18446744073709551616",
    b"\"jsonrpc\":\"2.0\"",
    b"\"id\":1",
    b"\"method\":\"tools/call\"",
    b"\"method\":\"tools/list\"",
    b"\"method\":\"initialize\"",
    b"\"method\":\"ping\"",
    b"\"method\":\"notifications/cancelled\"",
    b"\"params\":{}",
    b"\"arguments\":{\"html\":\"<p>\"}",
    b"\"name\":\"get_dom_outline\"",
    b"\"name\":\"get_html_chunk\"",
    b"\"name\":\"page_snapshot\"",
    b"\"name\":\"page_find\"",
    b"\"name\":\"cnt_view\"",
    b"\"name\":\"count_tokens\"",
    b"\"name\":\"web_fetch\"",
    b"\"max_tokens\":1",
    b"\"selector\":\"a\"",
    b"\"ref\":\"e1\"",
];

/// xorshift64*: small, fast and the same everywhere.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(state: u64) -> Rng {
        Rng(state.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One to four edits of `input`, the result at most `max_len` bytes.
pub fn mutate(
    rng: &mut Rng,
    input: &[u8],
    others: &[Vec<u8>],
    dict: &[&[u8]],
    max_len: usize,
) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = out.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                out[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                out[i] = [0, 0x7f, 0x80, 0xff, b'<', b'>', b'"', b'\n'][rng.below(8)];
            }
            2 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                out.drain(at..at + n);
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(256));
                let copy = out[at..at + n].to_vec();
                let to = rng.below(out.len() + 1);
                out.splice(to..to, copy);
            }
            4 if !others.is_empty() => {
                let other = &others[rng.below(others.len())];
                let from = rng.below(other.len() + 1);
                let n = rng.below((other.len() - from).min(512) + 1);
                let to = rng.below(out.len() + 1);
                out.splice(to..to, other[from..from + n].iter().copied());
            }
            5 if len > 0 => out.truncate(rng.below(len)),
            _ if !dict.is_empty() => {
                let token = dict[rng.below(dict.len())];
                let to = rng.below(out.len() + 1);
                out.splice(to..to, token.iter().copied());
            }
            _ => out.push(rng.next_u64() as u8),
        }
    }
    out.truncate(max_len);
    out
}

/// `starts` followed by `n` mutants, each of a start or of an earlier mutant.
pub fn cases(
    starts: &[Vec<u8>],
    n: usize,
    dict: &[&[u8]],
    max_len: usize,
    rng_state: u64,
) -> Vec<Vec<u8>> {
    let mut rng = Rng::new(rng_state);
    let mut out: Vec<Vec<u8>> = starts
        .iter()
        .map(|s| s[..s.len().min(max_len)].to_vec())
        .collect();
    if out.is_empty() {
        out.push(Vec::new());
    }
    for _ in 0..n {
        // Mostly from a start, sometimes from a mutant: edits accumulate.
        let base = if rng.below(4) == 0 {
            out[rng.below(out.len())].clone()
        } else {
            out[rng.below(starts.len().max(1))].clone()
        };
        let m = mutate(&mut rng, &base, &out, dict, max_len);
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_the_same_every_run_and_bounded() {
        let starts = vec![b"<p>hello</p>".to_vec(), b"<a href=x>y</a>".to_vec()];
        let a = cases(&starts, 200, HTML_TOKENS, 64, 7);
        let b = cases(&starts, 200, HTML_TOKENS, 64, 7);
        assert_eq!(a, b);
        assert_eq!(a.len(), 202);
        assert!(a.iter().all(|c| c.len() <= 64));
        assert!(a[2..].iter().any(|c| !starts.contains(c)));
    }
}
