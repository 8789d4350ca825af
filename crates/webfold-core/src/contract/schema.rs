//! A request's options as a small JSON Schema: what MCP clients are shown and
//! what the CLI and HTTP parsers read types, defaults and limits from.
//!
//! schemars writes a full schema; agents pay for every token of a tool list,
//! so this keeps only what a caller needs (type, description, default,
//! minimum/maximum, enum) and drops the rest (titles, formats, `null` arms of
//! optional values, `$schema`).

use std::any::{Any, TypeId};
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use super::Request;

/// One option of a request, as the parsers need it.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// The snake_case name in JSON and HTTP (kebab-case on the command line).
    pub name: String,
    pub kind: Kind,
    pub description: String,
    pub default: Option<Value>,
    pub required: bool,
}

/// An option's JSON type.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Integer {
        minimum: Option<u64>,
        maximum: Option<u64>,
    },
    Boolean,
    String,
    /// One of these strings.
    Enum(Vec<String>),
    /// A list of strings (repeatable on the command line and in a query).
    List,
}

/// The compact schema of `R`'s options: `{"type": "object", "properties": …}`.
pub fn of<R: Request>() -> Map<String, Value> {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let full = settings.into_generator().into_root_schema_for::<R>();
    let full = full.as_value();
    let mut props = Map::new();
    if let Some(p) = full.get("properties").and_then(Value::as_object) {
        for (name, prop) in p {
            props.insert(name.clone(), compact(prop));
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    out.insert("properties".into(), Value::Object(props));
    if let Some(req) = full
        .get("required")
        .filter(|r| r.as_array().is_some_and(|a| !a.is_empty()))
    {
        out.insert("required".into(), req.clone());
    }
    out
}

/// Any object schema reduced as [`of`] reduces a request's: for a surface's
/// own parameters beside a view's options.
pub fn compact_object(schema: Value) -> Value {
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let mut props = Map::new();
    if let Some(p) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in p {
            props.insert(name.clone(), compact(prop));
        }
    }
    out.insert("properties".into(), Value::Object(props));
    if let Some(req) = schema
        .get("required")
        .filter(|r| r.as_array().is_some_and(|a| !a.is_empty()))
    {
        out.insert("required".into(), req.clone());
    }
    Value::Object(out)
}

/// `R`'s options, read from its schema once per process: every request a
/// surface reads is checked against them, and generating a schema costs
/// more than most requests.
pub fn options<R: Request>() -> &'static [OptionSpec] {
    once_per_type::<R, Vec<OptionSpec>>(read_options::<R>)
}

/// What `build` makes of type `T`, made once per process. For what a type
/// alone decides (its schema and what is read from it); each value lives as
/// long as the process, one per type and kind of value.
pub fn once_per_type<T: 'static, V: Send + Sync + 'static>(build: fn() -> V) -> &'static V {
    type Memo = BTreeMap<(TypeId, TypeId), &'static (dyn Any + Send + Sync)>;
    static MEMO: Mutex<Memo> = Mutex::new(BTreeMap::new());
    let key = (TypeId::of::<T>(), TypeId::of::<V>());
    let known = MEMO
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .copied();
    // Built outside the lock, so a build may itself ask for another type's.
    let value = known.unwrap_or_else(|| {
        let built: &'static (dyn Any + Send + Sync) = Box::leak(Box::new(build()));
        *MEMO
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_insert(built)
    });
    match value.downcast_ref::<V>() {
        Some(v) => v,
        // The key holds V's type: the entry is a V.
        None => unreachable!("a memo entry of another type"),
    }
}

fn read_options<R: Request>() -> Vec<OptionSpec> {
    let schema = of::<R>();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| OptionSpec {
            name: name.clone(),
            kind: kind_of(p),
            description: p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            default: p.get("default").cloned(),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

fn kind_of(p: &Value) -> Kind {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        return Kind::Enum(
            values
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        );
    }
    let int = |k: &str| p.get(k).and_then(Value::as_u64);
    match p.get("type").and_then(Value::as_str) {
        Some("integer") | Some("number") => Kind::Integer {
            minimum: int("minimum"),
            maximum: int("maximum"),
        },
        Some("boolean") => Kind::Boolean,
        Some("array") => Kind::List,
        _ => Kind::String,
    }
}

/// One property, reduced to what a caller reads.
fn compact(prop: &Value) -> Value {
    let mut prop = prop.clone();
    // `Option<T>` is `anyOf: [T, null]` or `type: [T, "null"]`: keep T.
    if let Some(any) = prop.get("anyOf").and_then(Value::as_array)
        && let Some(inner) = any.iter().find(|s| s.get("type") != Some(&"null".into()))
    {
        let mut merged = inner.clone();
        if let (Some(m), Some(obj)) = (merged.as_object_mut(), prop.as_object()) {
            for (k, v) in obj {
                if k != "anyOf" {
                    m.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        prop = merged;
    }
    let Some(obj) = prop.as_object_mut() else {
        return prop;
    };
    // Definitions are not carried over: a referenced type is an object the
    // description explains.
    if obj.contains_key("$ref") {
        obj.remove("$ref");
        obj.insert("type".into(), "object".into());
    }
    if let Some(Value::Array(types)) = obj.get("type") {
        let t = types.iter().find(|t| *t != "null").cloned();
        if let Some(t) = t {
            obj.insert("type".into(), t);
        }
    }
    // Enums with documented variants come as `oneOf` of consts.
    if let Some(Value::Array(arms)) = obj.remove("oneOf") {
        let values: Vec<Value> = arms
            .iter()
            .filter_map(|a| a.get("const").cloned())
            .collect();
        obj.insert("type".into(), "string".into());
        obj.insert("enum".into(), Value::Array(values));
    }
    // A default of nothing (null, false, an empty string or list) tells a
    // caller no more than leaving the option out: it costs tokens, and a
    // command line would show it as `[default: []]`.
    let says_nothing = match obj.get("default") {
        Some(Value::Null | Value::Bool(false)) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        _ => false,
    };
    if says_nothing {
        obj.remove("default");
    }
    if let Some(Value::String(d)) = obj.get("description") {
        let one_line = d.split("\n\n").next().unwrap_or("").replace('\n', " ");
        obj.insert("description".into(), one_line.into());
    }
    for key in ["title", "format", "$schema", "additionalProperties"] {
        obj.remove(key);
    }
    if obj.get("type") == Some(&"integer".into()) && obj.get("minimum") == Some(&0.into()) {
        obj.remove("minimum");
    }
    if let Some(items) = obj.get_mut("items") {
        *items = compact(items);
    }
    prop
}
