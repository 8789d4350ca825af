//! Reading a request from what a surface received: a JSON object (MCP, HTTP
//! bodies) or `name=value` strings (command-line flags, a URL query). Types
//! come from the request's schema, so every surface accepts the same values
//! and says the same thing about a wrong one; unknown names are refused with
//! the list of valid ones.

use serde_json::{Map, Value};

use super::schema::{self, Kind, OptionSpec};
use super::{Request, Surface};
use crate::error::Error;

/// The request in `obj`; names outside `R`'s options are an error.
pub fn from_json<R: Request>(obj: Map<String, Value>, surface: Surface) -> Result<R, Error> {
    let specs = schema::options::<R>();
    let mut checked = Map::new();
    for (name, value) in obj {
        let spec = find(specs, &name, surface)?;
        if value.is_null() {
            continue;
        }
        checked.insert(name, check(spec, value, surface)?);
    }
    for spec in specs.iter().filter(|s| s.required) {
        if !checked.contains_key(&spec.name) {
            return Err(Error::InvalidOption(format!(
                "{} is required: {}",
                option_name(&spec.name, surface),
                spec.description
            )));
        }
    }
    let request: R = serde_json::from_value(Value::Object(checked))
        .map_err(|e| Error::InvalidOption(format!("invalid options: {e}")))?;
    request.validate(surface)?;
    Ok(request)
}

/// The request from `name=value` pairs, each value read as its option's type;
/// a repeated list option collects every value.
pub fn from_pairs<R: Request, I, K, V>(pairs: I, surface: Surface) -> Result<R, Error>
where
    I: IntoIterator<Item = (K, V)>,
    K: AsRef<str>,
    V: AsRef<str>,
{
    let specs = schema::options::<R>();
    let mut obj = Map::new();
    for (name, raw) in pairs {
        let (name, raw) = (name.as_ref(), raw.as_ref());
        let spec = find(specs, name, surface)?;
        let value = from_text(spec, raw, surface)?;
        match (&spec.kind, obj.get_mut(name)) {
            (Kind::List, Some(Value::Array(list))) => list.push(value),
            (Kind::List, _) => {
                obj.insert(name.to_string(), Value::Array(vec![value]));
            }
            (_, Some(_)) => {
                return Err(Error::InvalidOption(format!(
                    "{} is given twice: give it once",
                    option_name(name, surface)
                )));
            }
            (_, None) => {
                obj.insert(name.to_string(), value);
            }
        }
    }
    from_json(obj, surface)
}

/// How `surface` writes an option's name: `--max-tokens` or `max_tokens`
/// (`TEXT` for what the command line takes as a positional argument).
pub fn option_name(name: &str, surface: Surface) -> String {
    match (surface, super::cli_positional(name)) {
        (Surface::Cli, Some(placeholder)) => placeholder.to_string(),
        (Surface::Cli, None) => format!("--{}", name.replace('_', "-")),
        _ => name.to_string(),
    }
}

fn find<'a>(
    specs: &'a [OptionSpec],
    name: &str,
    surface: Surface,
) -> Result<&'a OptionSpec, Error> {
    specs.iter().find(|s| s.name == name).ok_or_else(|| {
        let valid: Vec<String> = specs
            .iter()
            .map(|s| option_name(&s.name, surface))
            .collect();
        Error::InvalidOption(format!(
            "unknown option '{name}': valid options are {}",
            valid.join(", ")
        ))
    })
}

fn from_text(spec: &OptionSpec, raw: &str, surface: Surface) -> Result<Value, Error> {
    Ok(match &spec.kind {
        Kind::Integer { .. } => match raw.trim().parse::<u64>() {
            Ok(n) => Value::from(n),
            Err(_) => return Err(wrong(spec, &format!("'{raw}'"), surface)),
        },
        Kind::Boolean => match raw.trim() {
            "" | "true" | "1" | "yes" => Value::Bool(true),
            "false" | "0" | "no" => Value::Bool(false),
            _ => return Err(wrong(spec, &format!("'{raw}'"), surface)),
        },
        Kind::String | Kind::Enum(_) | Kind::List => Value::String(raw.to_string()),
    })
}

fn check(spec: &OptionSpec, value: Value, surface: Surface) -> Result<Value, Error> {
    let ok = match (&spec.kind, &value) {
        // A value outside the declared range is refused on every surface,
        // with the range: a silent clamp would answer another question.
        (Kind::Integer { minimum, maximum }, Value::Number(n)) => n
            .as_u64()
            .is_some_and(|v| minimum.is_none_or(|lo| v >= lo) && maximum.is_none_or(|hi| v <= hi)),
        (Kind::Boolean, Value::Bool(_)) => true,
        (Kind::String, Value::String(_)) => true,
        (Kind::Enum(values), Value::String(s)) => values.contains(s),
        (Kind::List, Value::Array(items)) => items.iter().all(Value::is_string),
        // One string where a list is expected is a list of one.
        (Kind::List, Value::String(_)) => return Ok(Value::Array(vec![value])),
        _ => false,
    };
    if ok {
        Ok(value)
    } else {
        Err(wrong(spec, &value.to_string(), surface))
    }
}

fn wrong(spec: &OptionSpec, got: &str, surface: Surface) -> Error {
    let expected = match &spec.kind {
        Kind::Integer {
            minimum: lo,
            maximum: Some(hi),
        } => format!("a whole number from {} to {hi}", lo.unwrap_or(0)),
        Kind::Integer {
            minimum: Some(1), ..
        } => "a whole number above 0".to_string(),
        Kind::Integer {
            minimum: Some(lo), ..
        } => format!("a whole number of at least {lo}"),
        Kind::Integer { .. } => "a whole number".to_string(),
        Kind::Boolean => "true or false".to_string(),
        Kind::String => "a string".to_string(),
        Kind::Enum(values) => format!("one of {}", values.join(", ")),
        Kind::List => "a list of strings".to_string(),
    };
    Error::InvalidOption(format!(
        "{} must be {expected}, not {got}",
        option_name(&spec.name, surface)
    ))
}
