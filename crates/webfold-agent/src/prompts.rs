//! The prompts, as versioned files under `prompts/` compiled in. A change of
//! wording is a new version directory, so a transcript names the prompts it
//! was made with ([`VERSION`]); `tests/golden/` holds the exact requests sent.

/// The prompt set in use.
pub const VERSION: &str = "v1";

pub const SYSTEM: &str = include_str!("../prompts/v1/system.md");
pub const SYSTEM_FULL_HTML: &str = include_str!("../prompts/v1/system_full_html.md");
pub const CORRECT: &str = include_str!("../prompts/v1/correct.md");
pub const GET_HTML_CHUNK: &str = include_str!("../prompts/v1/get_html_chunk.md");
pub const FINAL_TOOL: &str = include_str!("../prompts/v1/final_tool.md");
pub const OPERATOR_SYSTEM: &str = include_str!("../prompts/v1/operator_system.md");
pub const OPERATOR: &str = include_str!("../prompts/v1/operator.md");
pub const AGENT_SYSTEM: &str = include_str!("../prompts/v1/agent_system.md");
pub const AGENT: &str = include_str!("../prompts/v1/agent.md");
pub const CORRECTOR_SYSTEM: &str = include_str!("../prompts/v1/corrector_system.md");
pub const CORRECTOR: &str = include_str!("../prompts/v1/corrector.md");
pub const LOOKUP_SYSTEM: &str = include_str!("../prompts/v1/lookup_system.md");
pub const LOOKUP: &str = include_str!("../prompts/v1/lookup.md");

/// seed 000's `dom_changes_generator` arguments: `{domChanges, response, action}`.
pub const DOM_CHANGES_SCHEMA: &str = include_str!("../schemas/dom_changes.v1.json");

/// `template` with each `{{name}}` replaced by its value. Values are inserted
/// once, left to right, so a value that contains `{{…}}` (page text can) is
/// never expanded again.
pub fn fill(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let name = &after[..close];
        match vars.iter().find(|(n, _)| *n == name) {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(&rest[open..open + 4 + close]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_replaces_once() {
        let out = fill("a {{x}} b {{y}} {{z}}\n", &[("x", "{{y}}"), ("y", "2")]);
        assert_eq!(out, "a {{y}} b 2 {{z}}");
    }

    #[test]
    fn every_placeholder_is_known() {
        let known = [
            "view_name",
            "view_guide",
            "view",
            "final_tool",
            "max_iterations",
            "html",
            "errors",
            "max_actions",
            "task",
            "history",
            "conversation",
            "url",
            "plan",
            "feedback",
            "step",
            "action",
            "result",
            "element",
            "failure",
        ];
        for t in [
            SYSTEM,
            SYSTEM_FULL_HTML,
            CORRECT,
            OPERATOR_SYSTEM,
            OPERATOR,
            AGENT_SYSTEM,
            AGENT,
            CORRECTOR_SYSTEM,
            CORRECTOR,
            LOOKUP_SYSTEM,
            LOOKUP,
        ] {
            let vars: Vec<(&str, &str)> = known.iter().map(|k| (*k, "")).collect();
            assert!(!fill(t, &vars).contains("{{"), "{t}");
        }
    }
}
