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
/// own parameters beside a view's options. A `$ref` to the schema's own
/// definitions (`$defs`, `definitions`) is replaced by what it names, so an
/// enum keeps its values and the result needs no definitions.
pub fn compact_object(schema: Value) -> Value {
    let defs = Defs::of(&schema);
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let mut props = Map::new();
    if let Some(p) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in p {
            props.insert(name.clone(), compact_in(&defs.resolve(prop, 0), &defs, 0));
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

/// A schema's definitions, for its `$ref`s to be read in place.
struct Defs<'a> {
    defs: Option<&'a Map<String, Value>>,
    /// The pointer prefix its refs use (`#/$defs/`, `#/definitions/`).
    prefix: &'static str,
}

/// How deep refs are followed (a recursive type stops there, accepting any value).
const MAX_REF_DEPTH: usize = 8;

impl<'a> Defs<'a> {
    fn of(schema: &'a Value) -> Defs<'a> {
        for (key, prefix) in [("$defs", "#/$defs/"), ("definitions", "#/definitions/")] {
            if let Some(d) = schema.get(key).and_then(Value::as_object) {
                return Defs {
                    defs: Some(d),
                    prefix,
                };
            }
        }
        Defs {
            defs: None,
            prefix: "#/$defs/",
        }
    }

    /// `prop` with its `$ref` replaced by the definition it names, the
    /// property's own keywords (its description, its default) kept over the
    /// definition's. A value type (an enum of strings, a number) comes whole;
    /// a structure is an object its description explains (what every tool
    /// list would otherwise repeat); an unresolvable ref becomes a schema any
    /// value meets.
    fn resolve(&self, prop: &Value, depth: usize) -> Value {
        let Some(obj) = prop.as_object() else {
            return prop.clone();
        };
        let Some(target) = obj.get("$ref").and_then(Value::as_str) else {
            return prop.clone();
        };
        let found = target
            .strip_prefix(self.prefix)
            .and_then(|name| self.defs?.get(name))
            .filter(|_| depth < MAX_REF_DEPTH);
        let mut merged = match found.map(|def| self.resolve(def, depth + 1)) {
            Some(Value::Object(m)) if is_structure(&m) => {
                Map::from_iter([("type".to_string(), Value::from("object"))])
            }
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        for (k, v) in obj {
            if k != "$ref" {
                merged.insert(k.clone(), v.clone());
            }
        }
        Value::Object(merged)
    }
}

/// Whether a definition is an object, or a choice of objects (a tagged enum).
fn is_structure(def: &Map<String, Value>) -> bool {
    let object = |s: &Value| s.get("type") == Some(&Value::from("object"));
    let arms_are_objects = ["oneOf", "anyOf"].iter().any(|k| {
        def.get(*k)
            .and_then(Value::as_array)
            .is_some_and(|arms| !arms.is_empty() && arms.iter().all(object))
    });
    def.get("type") == Some(&Value::from("object")) || arms_are_objects
}

/// One property, reduced to what a caller reads.
fn compact(prop: &Value) -> Value {
    compact_in(prop, &Defs::of(&Value::Null), 0)
}

/// One property (its refs read from `defs`), reduced to what a caller reads.
fn compact_in(prop: &Value, defs: &Defs, depth: usize) -> Value {
    let mut prop = defs.resolve(prop, depth);
    // `Option<T>` is `anyOf: [T, null]` or `type: [T, "null"]`: keep T.
    if let Some(any) = prop.get("anyOf").and_then(Value::as_array)
        && let [inner] = any
            .iter()
            .filter(|s| s.get("type") != Some(&"null".into()))
            .collect::<Vec<_>>()
            .as_slice()
    {
        let mut merged = defs.resolve(inner, depth);
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
    // Several arms (an untagged enum): each arm reduced, none dropped.
    if let Some(Value::Array(arms)) = obj.get_mut("anyOf") {
        for arm in arms.iter_mut() {
            *arm = compact_in(arm, defs, depth + 1);
        }
    }
    if let Some(Value::Array(types)) = obj.get("type") {
        let t = types.iter().find(|t| *t != "null").cloned();
        if let Some(t) = t {
            obj.insert("type".into(), t);
        }
    }
    // Enums with documented variants come as `oneOf` of consts.
    let consts: Option<Vec<Value>> = match obj.get("oneOf") {
        Some(Value::Array(arms)) => arms.iter().map(|a| a.get("const").cloned()).collect(),
        _ => None,
    };
    if let Some(values) = consts {
        obj.remove("oneOf");
        if values.iter().all(Value::is_string) {
            obj.insert("type".into(), "string".into());
        }
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
        *items = compact_in(items, defs, depth + 1);
    }
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        for p in props.values_mut() {
            *p = compact_in(p, defs, depth + 1);
        }
    }
    prop
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde_json::json;

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Mood {
        Calm,
        Busy,
    }

    /// A structure: an object its description explains.
    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Step {
        key: String,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    struct Args {
        mood: Mood,
        /// How it feels later
        later: Option<Mood>,
        /// One step
        step: Step,
        /// Steps in order
        steps: Vec<Step>,
        /// A number or a word
        either: NumberOrWord,
    }

    #[allow(dead_code)]
    #[derive(JsonSchema)]
    #[serde(untagged)]
    enum NumberOrWord {
        Number(u32),
        Word(String),
    }

    #[test]
    fn refs_are_read_from_the_schemas_definitions() {
        let root = schemars::SchemaGenerator::default().into_root_schema_for::<Args>();
        let compact = super::compact_object(root.to_value());
        let props = &compact["properties"];
        // An enum keeps its values, with or without `Option`.
        assert_eq!(
            props["mood"],
            json!({"type": "string", "enum": ["calm", "busy"]})
        );
        assert_eq!(props["later"]["enum"], json!(["calm", "busy"]));
        assert_eq!(props["later"]["type"], "string");
        // A structure is an object, alone or in a list.
        assert_eq!(
            props["step"],
            json!({"type": "object", "description": "One step"})
        );
        assert_eq!(props["steps"]["items"], json!({"type": "object"}));
        // Every arm of a choice is kept.
        let arms = props["either"]["anyOf"].as_array().unwrap();
        assert_eq!(arms.len(), 2, "{}", props["either"]);
        assert!(compact.get("$defs").is_none(), "{compact}");
        assert!(!compact.to_string().contains("$ref"), "{compact}");
    }
}
