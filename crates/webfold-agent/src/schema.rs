//! The part of JSON Schema a final answer is checked against: `type` (one or
//! a list), `properties`, `required`, `additionalProperties`, `items`,
//! `prefixItems`, `enum`, `const`, `minItems`/`maxItems`,
//! `minLength`/`maxLength`, `minimum`/`maximum`, `anyOf`/`oneOf`/`allOf`,
//! `not`, and local `$ref`s (`#/$defs/…`, `#/definitions/…`). Other keywords
//! (`format`, `pattern`, `description`, …) are annotations here, as a JSON
//! Schema validator may treat them.
//!
//! Written here rather than pulled in: the validator crates bring regex
//! engines, URL resolvers and HTTP clients for remote `$ref`s, and a model's
//! answer needs none of that. Errors name the JSON pointer of the bad value,
//! so the corrective turn can tell the model exactly what to fix.

use serde_json::{Map, Value};

/// References followed in a chain before giving up: a schema that refers to
/// itself without consuming input would otherwise loop.
const MAX_REF_DEPTH: usize = 64;
/// Violations reported at most; the rest are counted.
const MAX_ERRORS: usize = 20;

/// The checks a schema must pass before it is used: an object schema whose
/// `$ref`s resolve.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    let Some(obj) = schema.as_object() else {
        return Err("the schema must be a JSON object".into());
    };
    match obj.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        _ => {
            return Err(
                "the schema must describe an object: its top level needs \"type\": \"object\""
                    .into(),
            );
        }
    }
    let mut stack = vec![schema];
    while let Some(s) = stack.pop() {
        match s {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    resolve(schema, r)?;
                }
                stack.extend(m.values());
            }
            Value::Array(a) => stack.extend(a.iter()),
            _ => {}
        }
    }
    Ok(())
}

/// Every way `value` breaks `schema`, as `at /path: what` lines (empty when
/// it validates).
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut v = Validator {
        root: schema,
        errors: Vec::new(),
        more: 0,
    };
    v.check(schema, value, &mut String::new(), 0);
    let mut out = v.errors;
    if v.more > 0 {
        out.push(format!("… and {} more", v.more));
    }
    out
}

fn resolve<'a>(root: &'a Value, r: &str) -> Result<&'a Value, String> {
    let Some(pointer) = r.strip_prefix('#') else {
        return Err(format!(
            "$ref '{r}' is not local: only references inside the schema (#/$defs/…) are supported"
        ));
    };
    root.pointer(pointer)
        .ok_or_else(|| format!("$ref '{r}' points at nothing in the schema"))
}

struct Validator<'a> {
    root: &'a Value,
    errors: Vec<String>,
    more: usize,
}

impl Validator<'_> {
    fn fail(&mut self, path: &str, msg: String) {
        if self.errors.len() < MAX_ERRORS {
            let at = if path.is_empty() { "/" } else { path };
            self.errors.push(format!("at {at}: {msg}"));
        } else {
            self.more += 1;
        }
    }

    /// Checks without reporting: for the branches of `anyOf`/`oneOf`/`not`.
    fn passes(&self, schema: &Value, value: &Value, path: &mut String, depth: usize) -> bool {
        let mut probe = Validator {
            root: self.root,
            errors: Vec::new(),
            more: 0,
        };
        probe.check(schema, value, path, depth);
        probe.errors.is_empty()
    }

    fn check(&mut self, schema: &Value, value: &Value, path: &mut String, depth: usize) {
        let s = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return self.fail(path, "no value is allowed here".into()),
            Value::Object(s) => s,
            _ => return,
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            if depth >= MAX_REF_DEPTH {
                return self.fail(path, format!("$ref '{r}' nests too deeply"));
            }
            match resolve(self.root, r) {
                Ok(target) => self.check(target, value, path, depth + 1),
                Err(e) => self.fail(path, e),
            }
        }
        if let Some(t) = s.get("type")
            && !type_matches(t, value)
        {
            return self.fail(
                path,
                format!("expected {}, got {}", type_words(t), describe(value)),
            );
        }
        if let Some(Value::Array(options)) = s.get("enum")
            && !options.iter().any(|o| o == value)
        {
            self.fail(
                path,
                format!("{} is not one of {}", short(value), list(options)),
            );
        }
        if let Some(c) = s.get("const")
            && c != value
        {
            self.fail(path, format!("must be {}", short(c)));
        }
        self.combinators(s, value, path, depth);
        match value {
            Value::Object(obj) => self.object(s, obj, path, depth),
            Value::Array(items) => self.array(s, items, path, depth),
            Value::String(text) => {
                let n = text.chars().count() as u64;
                if let Some(min) = s.get("minLength").and_then(Value::as_u64)
                    && n < min
                {
                    self.fail(path, format!("shorter than {min} characters"));
                }
                if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
                    && n > max
                {
                    self.fail(path, format!("longer than {max} characters"));
                }
            }
            Value::Number(num) => {
                let x = num.as_f64().unwrap_or(f64::NAN);
                if let Some(min) = s.get("minimum").and_then(Value::as_f64)
                    && x < min
                {
                    self.fail(path, format!("{num} is less than the minimum {min}"));
                }
                if let Some(max) = s.get("maximum").and_then(Value::as_f64)
                    && x > max
                {
                    self.fail(path, format!("{num} is more than the maximum {max}"));
                }
            }
            _ => {}
        }
    }

    fn combinators(
        &mut self,
        s: &Map<String, Value>,
        value: &Value,
        path: &mut String,
        depth: usize,
    ) {
        if let Some(Value::Array(all)) = s.get("allOf") {
            for sub in all {
                self.check(sub, value, path, depth + 1);
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf")
            && !any
                .iter()
                .any(|sub| self.passes(sub, value, path, depth + 1))
        {
            self.fail(path, "matches none of the allowed shapes (anyOf)".into());
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let n = one
                .iter()
                .filter(|sub| self.passes(sub, value, path, depth + 1))
                .count();
            if n != 1 {
                self.fail(
                    path,
                    format!("must match exactly one of the allowed shapes (oneOf), matches {n}"),
                );
            }
        }
        if let Some(not) = s.get("not")
            && self.passes(not, value, path, depth + 1)
        {
            self.fail(path, "matches a shape that is not allowed (not)".into());
        }
    }

    fn object(
        &mut self,
        s: &Map<String, Value>,
        obj: &Map<String, Value>,
        path: &mut String,
        depth: usize,
    ) {
        if let Some(Value::Array(req)) = s.get("required") {
            for name in req.iter().filter_map(Value::as_str) {
                if !obj.contains_key(name) {
                    self.fail(path, format!("missing required property '{name}'"));
                }
            }
        }
        let props = s.get("properties").and_then(Value::as_object);
        let extra = s.get("additionalProperties");
        for (name, v) in obj {
            let len = path.len();
            path.push('/');
            path.push_str(&name.replace('~', "~0").replace('/', "~1"));
            match (props.and_then(|p| p.get(name)), extra) {
                (Some(sub), _) => self.check(sub, v, path, depth + 1),
                (None, Some(Value::Bool(false))) => {
                    path.truncate(len);
                    let known = props
                        .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                        .unwrap_or_default();
                    self.fail(
                        path,
                        format!("unknown property '{name}' (allowed: {known})"),
                    );
                }
                (None, Some(sub @ Value::Object(_))) => self.check(sub, v, path, depth + 1),
                (None, _) => {}
            }
            path.truncate(len);
        }
    }

    fn array(&mut self, s: &Map<String, Value>, items: &[Value], path: &mut String, depth: usize) {
        let n = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && n < min
        {
            self.fail(path, format!("has {n} items, fewer than {min}"));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && n > max
        {
            self.fail(path, format!("has {n} items, more than {max}"));
        }
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        let skip = prefix.map_or(0, Vec::len);
        for (i, item) in items.iter().enumerate() {
            let sub = match prefix.and_then(|p| p.get(i)) {
                Some(sub) => sub,
                None if i >= skip => match s.get("items") {
                    Some(sub) => sub,
                    None => continue,
                },
                None => continue,
            };
            let len = path.len();
            path.push('/');
            path.push_str(&i.to_string());
            self.check(sub, item, path, depth + 1);
            path.truncate(len);
        }
    }
}

fn type_matches(t: &Value, v: &Value) -> bool {
    match t {
        Value::String(name) => is_type(name, v),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| is_type(n, v)),
        _ => true,
    }
}

fn is_type(name: &str, v: &Value) -> bool {
    match name {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        // 1.0 is an integer in JSON Schema.
        "integer" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => true,
    }
}

fn type_words(t: &Value) -> String {
    match t {
        Value::Array(names) => {
            let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
            names.join(" or ")
        }
        Value::String(s) => a_or_an(s),
        _ => t.to_string(),
    }
}

fn a_or_an(word: &str) -> String {
    let article = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {word}")
}

fn describe(v: &Value) -> String {
    let kind = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    format!("{} ({})", a_or_an(kind), short(v))
}

/// A value in at most 60 characters, for error lines.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        let cut: String = s.chars().take(57).collect();
        format!("{cut}…")
    }
}

fn list(options: &[Value]) -> String {
    let shown: Vec<String> = options.iter().map(short).collect();
    shown.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dom_changes() -> Value {
        serde_json::from_str(crate::prompts::DOM_CHANGES_SCHEMA).unwrap()
    }

    #[test]
    fn default_schema_is_usable() {
        check_schema(&dom_changes()).unwrap();
    }

    #[test]
    fn valid_answer_passes() {
        let v = json!({
            "domChanges": [{"selector": "h1", "type": "text", "value": "Hi"}],
            "response": "Changed the headline.",
            "action": "append"
        });
        assert_eq!(validate(&dom_changes(), &v), Vec::<String>::new());
    }

    #[test]
    fn errors_name_the_path() {
        let v = json!({
            "domChanges": [{"type": "shout"}],
            "action": "sometimes"
        });
        let errs = validate(&dom_changes(), &v);
        assert!(
            errs.contains(&"at /: missing required property 'response'".to_string()),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.starts_with("at /domChanges/0: missing required property 'selector'")),
            "{errs:?}"
        );
        assert!(
            errs.iter()
                .any(|e| e.starts_with("at /domChanges/0/type: \"shout\" is not one of")),
            "{errs:?}"
        );
        assert!(
            errs.iter().any(|e| e.starts_with("at /action:")),
            "{errs:?}"
        );
    }

    #[test]
    fn keywords() {
        let s = json!({
            "type": "object",
            "$defs": {"n": {"type": "integer", "minimum": 1, "maximum": 3}},
            "properties": {
                "n": {"$ref": "#/$defs/n"},
                "t": {"type": ["string", "null"], "maxLength": 2},
                "a": {"type": "array", "minItems": 1, "items": {"const": 1}},
                "o": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                "x": {"not": {"type": "string"}}
            },
            "additionalProperties": false
        });
        check_schema(&s).unwrap();
        assert!(validate(&s, &json!({"n": 2, "t": null, "a": [1], "o": 3, "x": 1})).is_empty());
        let errs = validate(
            &s,
            &json!({"n": 2.5, "t": "abc", "a": [], "o": [], "x": "s", "z": 1}),
        );
        assert_eq!(errs.len(), 6, "{errs:?}");
        assert!(
            errs.iter().any(|e| e.contains("unknown property 'z'")),
            "{errs:?}"
        );
        assert!(
            validate(&s, &json!({"n": 9}))
                .iter()
                .any(|e| e.contains("maximum"))
        );
    }

    #[test]
    fn bad_schemas_are_refused() {
        assert!(check_schema(&json!({"type": "array"})).is_err());
        assert!(check_schema(&json!([])).is_err());
        let e = check_schema(
            &json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}),
        );
        assert!(e.unwrap_err().contains("points at nothing"));
        let e = check_schema(
            &json!({"type": "object", "properties": {"a": {"$ref": "http://x/s.json"}}}),
        );
        assert!(e.unwrap_err().contains("not local"));
    }

    #[test]
    fn self_reference_stops() {
        let s = json!({"type": "object", "$defs": {"l": {"$ref": "#/$defs/l"}}, "properties": {"a": {"$ref": "#/$defs/l"}}});
        let errs = validate(&s, &json!({"a": 1}));
        assert!(
            errs.iter().any(|e| e.contains("nests too deeply")),
            "{errs:?}"
        );
    }
}
