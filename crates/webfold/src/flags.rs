//! Command-line flags derived from a view's request type.
//!
//! Every view option is declared once, in the core (see
//! `webfold_core::contract`); this turns the declaration into clap arguments
//! (kebab-case names, the doc line as help, the default shown) and reads the
//! given values back through the same parser the HTTP bridge uses. So a flag
//! here, a query parameter there and an MCP argument always agree.

use std::marker::PhantomData;

use clap::builder::PossibleValuesParser;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command};
use serde_json::Value;
use webfold_core::contract::schema::{self, Kind, OptionSpec};
use webfold_core::contract::{Request, Surface, cli_positional, cli_switch, parse};

/// A view's request, as its flags set it (`#[command(flatten)]`).
pub struct Flags<R> {
    pub request: R,
    _view: PhantomData<R>,
}

fn id(name: &str) -> String {
    format!("opt:{name}")
}

fn switch_id(name: &str, value: bool) -> String {
    format!("opt:{name}:{value}")
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The clap arguments that set one option.
pub fn args_for(spec: &OptionSpec) -> Vec<Arg> {
    let help = spec.description.clone();
    if let Some(placeholder) = cli_positional(&spec.name) {
        return vec![
            Arg::new(id(&spec.name))
                .value_name(placeholder)
                .help(help)
                .required(true),
        ];
    }
    let long = spec.name.replace('_', "-");
    let value_name = match &spec.kind {
        Kind::Integer { .. } => "N".to_string(),
        _ if spec.name.contains("selector") || spec.name == "exclude" => "SEL".to_string(),
        _ if spec.name.ends_with("url") => "URL".to_string(),
        _ if spec.name == "focus" => "TASK".to_string(),
        _ => spec.name.to_uppercase(),
    };
    let mut arg = Arg::new(id(&spec.name)).long(long).value_name(value_name);
    match &spec.kind {
        Kind::Boolean => {
            let default = spec
                .default
                .as_ref()
                .and_then(Value::as_bool)
                .unwrap_or(false);
            // Both spellings exist so any hint can be followed; help shows the
            // one that changes something.
            return [true, false]
                .into_iter()
                .map(|v| {
                    let flag = cli_switch(&spec.name, v);
                    let name = flag.trim_start_matches("--").to_string();
                    let help = if v { help.clone() } else { negated(&help) };
                    Arg::new(switch_id(&spec.name, v))
                        .long(name)
                        .help(help)
                        .action(ArgAction::SetTrue)
                        .hide(v == default)
                        .overrides_with(switch_id(&spec.name, !v))
                })
                .collect();
        }
        Kind::List => arg = arg.action(ArgAction::Append),
        Kind::Enum(values) => {
            arg = arg.value_parser(PossibleValuesParser::new(values.clone()));
        }
        Kind::Integer { minimum, maximum } => {
            let range = match (minimum, maximum) {
                (Some(lo), Some(hi)) => format!(" ({lo}–{hi})"),
                (Some(lo), None) => format!(" (at least {lo})"),
                _ => String::new(),
            };
            arg = arg.help(format!("{help}{range}"));
            if let Some(d) = &spec.default {
                arg = arg.default_value(shown(d));
            }
            return vec![arg];
        }
        Kind::String => {}
    }
    if let Some(d) = &spec.default {
        arg = arg.default_value(shown(d));
    }
    vec![arg.help(help)]
}

/// The help of the switch that turns an option off, from the option's own
/// doc line: "Show breadcrumbs" → "Don't show breadcrumbs", "Only the main
/// content" → "Not only the main content". Docs of options that are on by
/// default start with a verb or with "Only" so that this reads well.
fn negated(doc: &str) -> String {
    if let Some(rest) = doc.strip_prefix("Only ") {
        return format!("Not only {rest}");
    }
    let mut chars = doc.chars();
    match chars.next() {
        Some(first) => format!("Don't {}{}", first.to_lowercase(), chars.as_str()),
        None => String::new(),
    }
}

impl<R: Request> clap::Args for Flags<R> {
    fn augment_args(mut cmd: Command) -> Command {
        for spec in schema::options::<R>() {
            for arg in args_for(spec) {
                cmd = cmd.arg(arg);
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

/// The options the user typed, as `name=value` pairs for the core's parser.
pub fn typed(specs: &[OptionSpec], m: &ArgMatches) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for spec in specs {
        let name = spec.name.clone();
        if let Kind::Boolean = spec.kind {
            for v in [true, false] {
                if m.get_flag(&switch_id(&name, v)) {
                    pairs.push((name.clone(), v.to_string()));
                }
            }
            continue;
        }
        // Defaults shown in --help come from the request itself: only
        // what the user typed is read.
        if m.value_source(&id(&name)) != Some(ValueSource::CommandLine) {
            continue;
        }
        if let Some(values) = m.get_many::<String>(&id(&name)) {
            pairs.extend(values.map(|v| (name.clone(), v.clone())));
        }
    }
    pairs
}

impl<R: Request> clap::FromArgMatches for Flags<R> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let pairs = typed(schema::options::<R>(), m);
        let request = parse::from_pairs::<R, _, _, _>(pairs, Surface::Cli).map_err(|e| {
            clap::Error::raw(clap::error::ErrorKind::ValueValidation, format!("{e}\n"))
        })?;
        Ok(Flags {
            request,
            _view: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}
