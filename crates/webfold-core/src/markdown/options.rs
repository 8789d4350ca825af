//! How Markdown is written: turndown's options plus webfold's own.

use url::Url;

/// `# Title` or an underlined title (setext, levels 1 and 2 only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HeadingStyle {
    #[default]
    Atx,
    Setext,
}

/// How `<pre><code>` is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CodeBlockStyle {
    #[default]
    Fenced,
    Indented,
}

/// `[text](url)` or `[text][1]` with the definitions at the end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinkStyle {
    #[default]
    Inlined,
    Referenced,
}

/// The label of a referenced link: `[text][1]`, `[text][]` or `[text]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinkReferenceStyle {
    #[default]
    Full,
    Collapsed,
    Shortcut,
}

/// Which characters of page text get a backslash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Escaping {
    /// Only what CommonMark/GFM would otherwise read as syntax where it stands:
    /// `snake_case` and `a * b` stay as they are. Fewer tokens, same rendering.
    #[default]
    Minimal,
    /// turndown's rules: every `\ * _ [ ] \``, and `- + = # ~~~ > 1.` at the
    /// start of a text node.
    Turndown,
}

/// Options of the Markdown view. [`MarkdownOptions::default`] is webfold's
/// token-cheap, CommonMark-correct style; [`MarkdownOptions::turndown`] is
/// turndown's defaults (what its test suite expects).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkdownOptions {
    pub heading_style: HeadingStyle,
    /// A thematic break, e.g. `---` or `* * *`.
    pub hr: String,
    /// `-`, `*` or `+`.
    pub bullet_list_marker: char,
    pub code_block_style: CodeBlockStyle,
    /// `` ``` `` or `~~~`; lengthened when the code contains it.
    pub fence: String,
    pub em_delimiter: String,
    pub strong_delimiter: String,
    pub link_style: LinkStyle,
    pub link_reference_style: LinkReferenceStyle,
    /// Written before the line break of a `<br>`: `\` or two spaces.
    pub br: String,
    /// Keep the whitespace of inline `<code>` as is (turndown's `preformattedCode`).
    pub preformatted_code: bool,
    pub escaping: Escaping,
    /// webfold's token-saving rules on top of turndown's; `false` reproduces
    /// turndown. See the module docs for the list.
    pub compact: bool,
    /// Keep `data:` URIs whole. By default long ones are cut to their media type
    /// (`data:image/png;base64,…`): a 1 KB inline image costs ~700 tokens.
    pub keep_data_uris: bool,
    /// The document's URL, to resolve relative links and images against. A
    /// `<base href>` in the page wins, resolved against this URL.
    pub base_url: Option<Url>,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        Self {
            heading_style: HeadingStyle::Atx,
            hr: "---".into(),
            bullet_list_marker: '-',
            code_block_style: CodeBlockStyle::Fenced,
            fence: "```".into(),
            em_delimiter: "*".into(),
            strong_delimiter: "**".into(),
            link_style: LinkStyle::Inlined,
            link_reference_style: LinkReferenceStyle::Full,
            br: "\\".into(),
            preformatted_code: false,
            escaping: Escaping::Minimal,
            compact: true,
            keep_data_uris: false,
            base_url: None,
        }
    }
}

impl MarkdownOptions {
    /// turndown 7.2's defaults, with its escaping and without webfold's
    /// compact rules.
    pub fn turndown() -> Self {
        Self {
            heading_style: HeadingStyle::Setext,
            hr: "* * *".into(),
            bullet_list_marker: '*',
            code_block_style: CodeBlockStyle::Indented,
            fence: "```".into(),
            em_delimiter: "_".into(),
            strong_delimiter: "**".into(),
            link_style: LinkStyle::Inlined,
            link_reference_style: LinkReferenceStyle::Full,
            br: "  ".into(),
            preformatted_code: false,
            escaping: Escaping::Turndown,
            compact: false,
            keep_data_uris: false,
            base_url: None,
        }
    }

    /// Sets one option by its turndown name (`headingStyle`, `hr`,
    /// `bulletListMarker`, `codeBlockStyle`, `fence`, `emDelimiter`,
    /// `strongDelimiter`, `linkStyle`, `linkReferenceStyle`, `br`,
    /// `preformattedCode`), so callers can pass turndown configurations through.
    pub fn set_turndown_option(&mut self, name: &str, value: &str) -> crate::error::Result<()> {
        let bad = || {
            crate::Error::InvalidOption(format!(
                "invalid value '{value}' for Markdown option {name}"
            ))
        };
        match name {
            "headingStyle" => {
                self.heading_style = match value {
                    "atx" => HeadingStyle::Atx,
                    "setext" => HeadingStyle::Setext,
                    _ => return Err(bad()),
                }
            }
            "hr" => self.hr = value.to_owned(),
            "bulletListMarker" => match value {
                "-" | "*" | "+" => self.bullet_list_marker = value.chars().next().unwrap_or('-'),
                _ => return Err(bad()),
            },
            "codeBlockStyle" => {
                self.code_block_style = match value {
                    "fenced" => CodeBlockStyle::Fenced,
                    "indented" => CodeBlockStyle::Indented,
                    _ => return Err(bad()),
                }
            }
            "fence" => match value {
                "```" | "~~~" => self.fence = value.to_owned(),
                _ => return Err(bad()),
            },
            "emDelimiter" => match value {
                "_" | "*" => self.em_delimiter = value.to_owned(),
                _ => return Err(bad()),
            },
            "strongDelimiter" => match value {
                "**" | "__" => self.strong_delimiter = value.to_owned(),
                _ => return Err(bad()),
            },
            "linkStyle" => {
                self.link_style = match value {
                    "inlined" => LinkStyle::Inlined,
                    "referenced" => LinkStyle::Referenced,
                    _ => return Err(bad()),
                }
            }
            "linkReferenceStyle" => {
                self.link_reference_style = match value {
                    "full" => LinkReferenceStyle::Full,
                    "collapsed" => LinkReferenceStyle::Collapsed,
                    "shortcut" => LinkReferenceStyle::Shortcut,
                    _ => return Err(bad()),
                }
            }
            "br" => self.br = value.to_owned(),
            "preformattedCode" => {
                self.preformatted_code = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad()),
                }
            }
            _ => {
                return Err(crate::Error::InvalidOption(format!(
                    "unknown Markdown option '{name}'"
                )));
            }
        }
        Ok(())
    }
}
