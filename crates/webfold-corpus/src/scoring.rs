//! Scoring of main-content extraction against the corpus' ground truth, with
//! each upstream benchmark's own conventions (shared by the scorer test and
//! the bench).

use std::collections::HashMap;

/// `\w+` tokens (Unicode letters, digits, underscore), case kept: the AEB
/// `evaluate.py` compiles `\w+` with IGNORECASE, which does not fold case.
pub fn tokenize(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(&text[s..i]);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

fn shingles(text: &str, n: usize) -> HashMap<Vec<&str>, u32> {
    let tokens = tokenize(text);
    let mut out = HashMap::new();
    let count = tokens.len().saturating_sub(n) + 1;
    for i in 0..count.max(1) {
        let s: Vec<&str> = tokens[i.min(tokens.len())..(i + n).min(tokens.len())].to_vec();
        if !s.is_empty() {
            *out.entry(s).or_insert(0) += 1;
        }
    }
    out
}

/// True/false positives and false negatives of 4-gram shingles, normalized
/// to sum to 1 (so long texts do not weigh more), as `evaluate.py` does.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShingleMatch {
    pub tp: f64,
    pub fp: f64,
    pub fn_: f64,
}

impl ShingleMatch {
    pub fn of(truth: &str, pred: &str) -> ShingleMatch {
        let t = shingles(truth, 4);
        let p = shingles(pred, 4);
        let (mut tp, mut fp, mut fn_) = (0.0, 0.0, 0.0);
        for (k, &tc) in &t {
            let pc = p.get(k).copied().unwrap_or(0);
            tp += tc.min(pc) as f64;
            fn_ += tc.saturating_sub(pc) as f64;
        }
        for (k, &pc) in &p {
            let tc = t.get(k).copied().unwrap_or(0);
            fp += pc.saturating_sub(tc) as f64;
        }
        let s = tp + fp + fn_;
        if s > 0.0 {
            ShingleMatch {
                tp: tp / s,
                fp: fp / s,
                fn_: fn_ / s,
            }
        } else {
            ShingleMatch::default()
        }
    }

    pub fn precision(&self) -> f64 {
        if self.fp == 0.0 && self.fn_ == 0.0 {
            1.0
        } else if self.tp == 0.0 && self.fp == 0.0 {
            0.0
        } else {
            self.tp / (self.tp + self.fp)
        }
    }

    pub fn recall(&self) -> f64 {
        if self.fp == 0.0 && self.fn_ == 0.0 {
            1.0
        } else if self.tp == 0.0 && self.fn_ == 0.0 {
            0.0
        } else {
            self.tp / (self.tp + self.fn_)
        }
    }

    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

/// The benchmark's aggregate: mean precision and mean recall over pages,
/// then their harmonic mean.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prf {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

pub fn aggregate(matches: &[ShingleMatch]) -> Prf {
    let ps: Vec<f64> = matches
        .iter()
        .filter(|m| m.tp + m.fp > 0.0)
        .map(|m| m.precision())
        .collect();
    let rs: Vec<f64> = matches
        .iter()
        .filter(|m| m.tp + m.fn_ > 0.0)
        .map(|m| m.recall())
        .collect();
    let mean = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let (precision, recall) = (mean(&ps), mean(&rs));
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    Prf {
        precision,
        recall,
        f1,
    }
}

/// Whitespace runs to one space, so a snippet matches across line breaks;
/// soft hyphens (invisible break hints, which the Markdown drops) go on both sides.
pub fn squash(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('\u{ad}', "")
}

/// Trafilatura's check: `with` snippets found, `without` snippets absent.
#[derive(Clone, Copy, Debug, Default)]
pub struct SnippetCounts {
    pub with_found: usize,
    pub with_total: usize,
    pub without_absent: usize,
    pub without_total: usize,
}

impl SnippetCounts {
    pub fn of(output: &str, with: &[String], without: &[String]) -> SnippetCounts {
        let out = squash(output);
        let with_found = with.iter().filter(|s| out.contains(&squash(s))).count();
        let without_absent = without.iter().filter(|s| !out.contains(&squash(s))).count();
        SnippetCounts {
            with_found,
            with_total: with.len(),
            without_absent,
            without_total: without.len(),
        }
    }

    /// The snippets that failed, for study: `with` ones missing, `without` ones present.
    pub fn failures(output: &str, with: &[String], without: &[String]) -> Vec<String> {
        let out = squash(output);
        let missing = with
            .iter()
            .filter(|s| !out.contains(&squash(s)))
            .map(|s| format!("missing: {}", squash(s)));
        let present = without
            .iter()
            .filter(|s| out.contains(&squash(s)))
            .map(|s| format!("present: {}", squash(s)));
        missing.chain(present).collect()
    }

    pub fn add(&mut self, o: SnippetCounts) {
        self.with_found += o.with_found;
        self.with_total += o.with_total;
        self.without_absent += o.without_absent;
        self.without_total += o.without_total;
    }

    pub fn with_share(&self) -> f64 {
        self.with_found as f64 / self.with_total.max(1) as f64
    }

    pub fn without_share(&self) -> f64 {
        self.without_absent as f64 / self.without_total.max(1) as f64
    }
}

/// Text of an HTML fragment (Readability's expected output), blocks apart.
pub fn html_text(html: &str) -> String {
    use webfold_core::page::NodeData;
    let page = webfold_core::Page::parse(html);
    let mut out = String::new();
    for n in page.nodes() {
        match &n.data {
            NodeData::Text(t) => out.push_str(t),
            NodeData::Element(e)
                if !matches!(
                    e.local_name(),
                    "a" | "b"
                        | "i"
                        | "em"
                        | "strong"
                        | "span"
                        | "code"
                        | "sup"
                        | "sub"
                        | "abbr"
                        | "small"
                ) =>
            {
                out.push(' ')
            }
            _ => {}
        }
    }
    out
}

/// What a reader of rendered Markdown sees: link text without its
/// destination, no images, no emphasis markers or backslash escapes. The
/// benchmarks score content, so syntax should neither help nor hurt.
pub fn markdown_visible_text(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    let chars: Vec<char> = md.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if chars.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '!' if chars.get(i + 1) == Some(&'[') => {
                // An image: skip `![alt](dest)` whole.
                match skip_link(&chars, i + 1) {
                    Some((_, end)) => i = end,
                    None => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            '[' => match skip_link(&chars, i) {
                Some((text_end, end)) => {
                    out.push_str(&markdown_visible_text(
                        &chars[i + 1..text_end].iter().collect::<String>(),
                    ));
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            '*' | '`' | '~' | '|' => i += 1,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `[text](dest)` starting at `open`: the index of `]` and one past `)`.
fn skip_link(chars: &[char], open: usize) -> Option<(usize, usize)> {
    let mut depth = 0;
    let mut j = open;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 1,
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    if j >= chars.len() || chars.get(j + 1) != Some(&'(') {
        return None;
    }
    let text_end = j;
    let mut k = j + 2;
    let mut parens = 1;
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 1,
            '(' => parens += 1,
            ')' => {
                parens -= 1;
                if parens == 0 {
                    return Some((text_end, k + 1));
                }
            }
            '\n' => return None,
            _ => {}
        }
        k += 1;
    }
    None
}

/// What a page's ground truth says of one extraction output.
#[derive(Clone, Default)]
pub struct Judged {
    /// AEB and Readability pages: shingle match against the expected text.
    pub shingles: Option<ShingleMatch>,
    /// Trafilatura pages: snippets found / absent.
    pub snippets: Option<SnippetCounts>,
    /// Failed snippets, for reports.
    pub failures: Vec<String>,
}

/// Judge `output` (extracted text) against `cp`'s ground truth, by its set's
/// own convention.
pub fn judge(cp: &crate::CorpusPage, output: &str) -> Judged {
    let mut s = Judged::default();
    let json = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&cp.truth(name)).unwrap_or(serde_json::Value::Null)
    };
    match cp.set.as_str() {
        "aeb" => {
            let truth = json("expected.json");
            let body = truth["articleBody"].as_str().unwrap_or("");
            s.shingles = Some(ShingleMatch::of(body, output));
        }
        "readability" => {
            let expected =
                String::from_utf8_lossy(&cp.truth("readability-expected.html")).into_owned();
            s.shingles = Some(ShingleMatch::of(&html_text(&expected), output));
        }
        "trafilatura" => {
            let truth = json("expected.json");
            let list = |k: &str| -> Vec<String> {
                truth[k]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (with, without) = (list("with"), list("without"));
            s.snippets = Some(SnippetCounts::of(output, &with, &without));
            s.failures = SnippetCounts::failures(output, &with, &without);
        }
        _ => {}
    }
    s
}
